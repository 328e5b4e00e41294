// What a workspace's customers will get, for its email settings page: the layout notify sends
// (supabase/functions/_shared/email-layout.tsx) rendered here, on the server, with an example reply.
import { createElement } from 'react';
import { brandOf, type EmailSettings } from '../../../supabase/functions/_shared/email-brand.ts';
import { renderEmail, ThreadEmail } from '../../../supabase/functions/_shared/email-layout.tsx';
import { messageEmailHtml, messageText } from '../../../supabase/functions/_shared/message-html.ts';
import { env } from '../env.server.ts';

// The team writes Markdown (the composer); the customer's email is text.
const REPLY =
  'Thanks for the details. I have **reset the printer queue** on our side.\n\nCould you try printing again and tell me:\n\n- what the printer shows\n- whether the page comes out';
const QUESTION = 'Our office printer stopped printing this morning. It shows "paused" and nothing happens.';

/** The example email as `settings` would make it (the saved ones, or what the admin typed). */
export function previewEmail(workspaceName: string, settings: EmailSettings | null, agentName: string): string {
  return renderEmail(
    createElement(ThreadEmail, {
      brand: brandOf(workspaceName, settings, env.SUPABASE_URL),
      heading: `${agentName} replied to your request`,
      ticket: { number: 42, subject: 'The printer says “paused”', status: 'Awaiting your reply' },
      message: {
        author: agentName,
        when: 'Today, 10:24',
        html: messageEmailHtml({ body: REPLY, markdown: true }),
        text: messageText({ body: REPLY, markdown: true }),
        fromTeam: true,
      },
      files: [],
      earlier: [
        {
          author: 'Casey Customer',
          when: 'Today, 09:12',
          html: messageEmailHtml({ body: QUESTION, markdown: false }),
          text: QUESTION,
          fromTeam: false,
        },
      ],
      button: { label: 'View the conversation', url: '#' },
      answer: 'Reply to this email to answer.',
      fine: `You get this email because you wrote to ${settings?.sender_name || workspaceName}.`,
    }),
  );
}
