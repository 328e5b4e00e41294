// Reading sign-in emails through the mail catcher's Mailpit API, as a user reads their inbox.
import { waitFor } from './wait.ts';

export interface MailSummary {
  ID: string;
  To: { Address: string }[];
  Subject: string;
  Created: string;
}

/**
 * Emails to `email`, newest first. notify's emails arrive in the same inboxes at any time (ticket
 * notifications, whose Reply-To is reply+…; invitations, "… invited you to …"); they are left out
 * unless `notifications` asks for them, so the rest are Auth's sign-in emails.
 */
export async function messagesTo(
  mailUrl: string,
  email: string,
  opts: { notifications?: boolean } = {},
): Promise<MailSummary[]> {
  const query = opts.notifications ? `to:${email}` : `to:${email} -reply-to:reply+ -subject:invited`;
  const res = await fetch(`${mailUrl}/api/v1/search?query=${encodeURIComponent(query)}`);
  if (!res.ok) throw new Error(`mail search failed: ${res.status}`);
  return (await res.json()).messages;
}

/** Waits for the `nth` email (1-based) to `email` and returns its text and the code in it. */
export async function waitForMail(
  mailUrl: string,
  email: string,
  nth = 1,
  timeoutMs = 10_000,
): Promise<{ text: string; html: string; code: string }> {
  const list = await waitFor(
    `email #${nth} to ${email}`,
    async () => {
      const found = await messagesTo(mailUrl, email);
      return found.length >= nth && found;
    },
    timeoutMs,
  );
  const msg = await (await fetch(`${mailUrl}/api/v1/message/${list[0].ID}`)).json();
  const code = /\b(\d{6})\b/.exec(msg.Text)?.[1];
  if (!code) throw new Error(`no code in the email to ${email}:\n${msg.Text}`);
  return { text: msg.Text, html: msg.HTML, code };
}
