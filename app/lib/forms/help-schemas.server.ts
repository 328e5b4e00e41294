// The help center's form schemas (docs/product.md §5), read with Conform like every form's
// (schemas.server.ts): server-only, as zod must stay out of the browser.
import { z } from 'zod';
import {
  ARTICLE_BODY_MAX_LENGTH,
  ARTICLE_TITLE_MAX_LENGTH,
  COLLECTION_DESCRIPTION_MAX_LENGTH,
  COLLECTION_TITLE_MAX_LENGTH,
} from '../help/limits.ts';
import { errorMessage } from '../errors/catalogue.server.ts';

const badRequest = { error: errorMessage('bad_request') };

/** "Was this article helpful?" */
export const HelpVoteSchema = z.object({ helpful: z.enum(['yes', 'no'], badRequest) });

const titleMessage = `Enter a title of 1 to ${ARTICLE_TITLE_MAX_LENGTH} characters.`;
const collectionTitleMessage = `Enter a name of 1 to ${COLLECTION_TITLE_MAX_LENGTH} characters.`;

/** An article as the editor sends it (every button: save, publish, preview, insert an image). */
export const ArticleSchema = z.object({
  title: z.string({ error: titleMessage }).trim().min(1, titleMessage).max(ARTICLE_TITLE_MAX_LENGTH, titleMessage),
  body: z
    .string()
    .default('')
    .refine((s) => s.length <= ARTICLE_BODY_MAX_LENGTH, errorMessage('article_too_long')),
  collection_id: z
    .string()
    .regex(/^([0-9a-f-]{36})?$/, badRequest)
    .default(''),
  /** The article's updated_at as the editor loaded it (none for a new one): the edit check. */
  seen: z.string().max(64).optional(),
});

export const CollectionSchema = z.object({
  title: z
    .string({ error: collectionTitleMessage })
    .trim()
    .min(1, collectionTitleMessage)
    .max(COLLECTION_TITLE_MAX_LENGTH, collectionTitleMessage),
  description: z
    .string()
    .trim()
    .max(COLLECTION_DESCRIPTION_MAX_LENGTH, `Keep it under ${COLLECTION_DESCRIPTION_MAX_LENGTH} characters.`)
    .default(''),
});
