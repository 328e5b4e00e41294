// A customer's account, made the first time someone writes to the team from an address (inbound-email)
// or the team writes to one (ensure-customer, for "New conversation"): a confirmed user, as a sign-up makes.
import { DISPLAY_NAME_MAX_LENGTH } from './limits.ts';
import { admin } from './platform.ts';

/** The user of `email`, made if there is none (an address that has one already is left as it is). */
export async function ensureUser(email: string, name: string | undefined): Promise<void> {
  const { error } = await admin().auth.admin.createUser({
    email,
    email_confirm: true,
    user_metadata: name ? { display_name: name.slice(0, DISPLAY_NAME_MAX_LENGTH) } : {},
  });
  if (error && error.code !== 'email_exists') throw error;
}
