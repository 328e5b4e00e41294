// POST /token — refresh_token and pkce grants (GoTrue token.go, token_refresh.go; docs/reference/auth.md §1.6–1.7).
import { createHash, timingSafeEqual } from 'node:crypto';
import { requestMeta, tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { readJson, str } from './http.ts';
import { refresh, signIn } from './sessions.ts';
import { findById } from './users.ts';

const FLOW_STATE_EXPIRY = 300; // GoTrue: GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION default (and minimum)

export const token: Handler = async (ctx, req, res, url) => {
  const grant = url.searchParams.get('grant_type');
  const body = await readJson(req);
  if (grant === 'refresh_token') {
    const rt = str(body.refresh_token);
    if (!rt) throw errors.oauth('invalid_request', 'refresh_token required'); // GoTrue tokens/service.go
    // GoTrue tokens/service.go: legacy tokens are 12 chars [a-z0-9]; shorter ones are refused outright.
    if (rt.length < 12) throw errors.validation('Refresh token is not valid');
    const session = await tx(ctx.pool, (c) => refresh(c, ctx, rt));
    return sendJson(res, 200, session);
  }
  if (grant === 'pkce') {
    const authCode = str(body.auth_code);
    const verifier = str(body.code_verifier);
    if (!authCode || !verifier)
      throw errors.validation('invalid request: both auth code and code verifier should be non-empty');
    const session = await tx(ctx.pool, async (c) => {
      const flow = (await c.query('select * from auth.flow_state where auth_code = $1 for update', [authCode])).rows[0];
      if (!flow?.user_id)
        throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
      const from =
        flow.authentication_method === 'magiclink' && flow.auth_code_issued_at
          ? flow.auth_code_issued_at
          : flow.created_at;
      if (Date.now() - new Date(from).getTime() > FLOW_STATE_EXPIRY * 1000)
        throw new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired');
      const expected: string =
        flow.code_challenge_method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      const a = Buffer.from(expected);
      const b = Buffer.from(flow.code_challenge ?? '');
      if (a.length !== b.length || !timingSafeEqual(a, b))
        throw new AuthError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
      await c.query('delete from auth.flow_state where id = $1', [flow.id]); // single use
      const user = await findById(c, flow.user_id);
      if (!user) throw errors.userNotFound(404);
      return signIn(c, ctx, user, flow.authentication_method, requestMeta(req));
    });
    return sendJson(res, 200, session);
  }
  throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type'); // GoTrue token.go: any other grant
};
