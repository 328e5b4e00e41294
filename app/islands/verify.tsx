// The island of /login/verify (docs/decisions/006-javascript-budget.md): React and input-otp for
// the code form and the resend options, and nothing of Remix. Built by scripts/build-islands.ts.
import { hydrateIslands } from '~/components/hydrate-islands.tsx';
import { verifyIslands } from '~/components/verify-parts.tsx';

hydrateIslands(verifyIslands);
