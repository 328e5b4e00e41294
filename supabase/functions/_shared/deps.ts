// npm: imports, pinned in one place (jsr and esm.sh are out of reach of the local stack's runtime).
export { createClient, type SupabaseClient } from 'npm:@supabase/supabase-js@2.119.1';
export { default as nodemailer } from 'npm:nodemailer@6.10.1';
// A MIME part's headers as nodemailer formats them (email.ts: files sent already encoded).
export { default as MimeNode } from 'npm:nodemailer@6.10.1/lib/mime-node/index.js';
// Its quoted-printable line breaks (email-mime.ts writes messages out with them).
export { wrap as qpWrap } from 'npm:nodemailer@6.10.1/lib/qp/index.js';
