// npm: imports, pinned in one place (jsr and esm.sh are out of reach of the local stack's runtime).
export { createClient, type SupabaseClient } from 'npm:@supabase/supabase-js@2.119.1';
// nodemailer as the app's (package.json): its SMTP client pipelines the envelope and DATA when the server offers
// PIPELINING (RFC 2920), two round trips an email fewer than 6.x (docs/decisions/119-notify-pipelines-smtp.md).
export { default as nodemailer } from 'npm:nodemailer@10.6.1';
// A MIME part's headers as nodemailer formats them (email.ts: files sent already encoded).
export { default as MimeNode } from 'npm:nodemailer@10.6.1/lib/mime-node';
// Its quoted-printable line breaks (email-mime.ts writes messages out with them).
export { wrap as qpWrap } from 'npm:nodemailer@10.6.1/lib/qp';
