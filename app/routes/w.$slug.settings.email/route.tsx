// A workspace's emails (admins only, docs/product.md#a-workspaces-emails): the sender's name and address, the accent
// colour, logo and footer, with a preview of what customers get (live while typing, with JavaScript;
// the Preview button without), and the DNS records that let the workspace send from its own domain.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import {
  ErrorList,
  Field,
  SubmitButton,
  TextareaField,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { EMAIL_FOOTER_MAX_LENGTH, SENDER_NAME_MAX_LENGTH } from '~/lib/email/limits.ts';
import type { action, loader } from './email-settings.server.ts';

export { action, loader } from './email-settings.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Email · ${data.workspace.name} · Tend` : 'Email · Tend' },
];

/** With JavaScript, the preview follows the form: the server renders it as it will send it. */
function useLivePreview(form: React.RefObject<HTMLFormElement>, slug: string, initial: string) {
  const [html, setHtml] = useState(initial);
  useEffect(() => setHtml(initial), [initial]);
  useEffect(() => {
    const el = form.current;
    if (!el) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let latest = 0;
    const refresh = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const body = new FormData(el);
        body.delete('logo'); // the file goes with Save, not with every keystroke
        body.set('intent', 'preview');
        const ask = ++latest;
        const res = await fetch(`/w/${slug}/settings/email/preview`, { method: 'POST', body }).catch(() => null);
        // A field that doesn't pass yet keeps the last good preview; the form says what is wrong on Save.
        if (res?.ok && ask === latest) setHtml(await res.text());
      }, 300);
    };
    el.addEventListener('input', refresh);
    el.addEventListener('change', refresh);
    return () => {
      clearTimeout(timer);
      el.removeEventListener('input', refresh);
      el.removeEventListener('change', refresh);
    };
  }, [form, slug]);
  return html;
}

export default function EmailSettingsPage() {
  const { workspace, settings, verified, records, domain, preview, notice, logoUrl, ccAddsFollowers } =
    useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const result = answer && 'result' in answer ? answer.result : undefined;
  const pending = useIsPending();
  const form = useRef<HTMLFormElement>(null);
  const shown = useLivePreview(form, workspace.slug, (answer as { preview?: string } | undefined)?.preview ?? preview);
  const kept = (name: 'sender_name' | 'sender_address' | 'accent_color' | 'footer' | 'dkim_selector') =>
    result ? (replyValue(result, name) ?? '') : (settings?.[name] ?? '');
  return (
    <section className="stack-lg" aria-labelledby="email-settings-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="email"
        title="Email"
        titleId="email-settings-title"
        notice={notice}
      />
      {settings?.sender_address && !verified ? (
        <p className="notice notice--warning" data-testid="sender-warning">
          Emails come from Tend’s address with your sender name until {domain} is verified: add the DNS records below,
          then choose Verify.
        </p>
      ) : null}
      <div className="hd-email-settings">
        <Form
          ref={form}
          method="post"
          encType="multipart/form-data"
          noValidate
          className="card stack"
          aria-label="Email settings"
        >
          <ErrorList errors={replyFormErrors(result)} />
          <Field
            label="Sender name"
            hint={`What customers see as the sender, such as “${workspace.name} Support”. Empty: ${workspace.name}.`}
            errors={replyErrors(result, 'sender_name')}
            inputProps={{
              name: 'sender_name',
              defaultValue: kept('sender_name'),
              maxLength: SENDER_NAME_MAX_LENGTH,
              autoComplete: 'off',
            }}
          />
          <Field
            label="Sender address"
            hint="Such as support@your-domain.example. Used once its domain is verified; replies still come back to Tend."
            errors={replyErrors(result, 'sender_address')}
            inputProps={{
              name: 'sender_address',
              type: 'email',
              defaultValue: kept('sender_address'),
              autoComplete: 'off',
            }}
          />
          <Field
            label="Accent colour"
            hint="The button, the line above each email and the team’s initials."
            errors={replyErrors(result, 'accent_color')}
            inputProps={{ name: 'accent_color', type: 'color', defaultValue: kept('accent_color') || '#1d4ed8' }}
          />
          <Field
            label="Logo"
            hint="PNG, JPEG, GIF or WebP, at most 1 MB; shown 40 pixels high. Empty: the sender name in text."
            errors={replyErrors(result, 'logo')}
            inputProps={{ name: 'logo', type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp' }}
          />
          {logoUrl ? (
            <div className="hd-email-settings__logo">
              <img src={logoUrl} alt={`The current logo of ${workspace.name}`} height={40} />
              <label className="checkbox">
                <input type="checkbox" name="remove_logo" value="on" /> Remove the logo
              </label>
            </div>
          ) : null}
          <TextareaField
            id="email-footer"
            name="footer"
            label="Footer"
            hint="Under every email: your address, opening hours, a line about you."
            errors={replyErrors(result, 'footer')}
            defaultValue={kept('footer')}
            maxLength={EMAIL_FOOTER_MAX_LENGTH}
            rows={3}
          />
          <Field
            label="DKIM selector"
            hint="The selector your email provider gives for signing (the part before ._domainkey). Optional."
            errors={replyErrors(result, 'dkim_selector')}
            inputProps={{ name: 'dkim_selector', defaultValue: kept('dkim_selector'), autoComplete: 'off' }}
          />
          <div className="hd-actions">
            <SubmitButton name="intent" value="save" pending={pending}>
              Save
            </SubmitButton>
            <SubmitButton name="intent" value="preview" className="button button--secondary">
              Preview
            </SubmitButton>
          </div>
        </Form>
        <section className="card stack" aria-labelledby="email-preview-title">
          <h2 id="email-preview-title">Preview</h2>
          <p className="muted small">A reply as your customers get it.</p>
          {/* The email's own document; sandboxed: no script, no form, no navigation of this page. */}
          <iframe title="Preview of a customer’s email" srcDoc={shown} sandbox="" className="hd-email-preview" />
        </section>
      </div>
      <Form method="post" className="card stack" aria-labelledby="cc-followers-title">
        <h2 id="cc-followers-title">People an email copies</h2>
        <label className="checkbox">
          <input type="checkbox" name="cc_adds_followers" value="on" defaultChecked={ccAddsFollowers} /> Add the other
          people a customer’s email is sent to (To and Cc) as followers of its ticket
        </label>
        <p className="muted small">
          Followers get the team’s replies by email and can answer. Your own addresses and your team are never added.
        </p>
        <div className="hd-actions">
          {/* Named apart from the sender's "Save": two buttons of one name are one too many for a screen reader. */}
          <SubmitButton name="intent" value="cc_followers" className="button button--secondary">
            Save copied people
          </SubmitButton>
        </div>
      </Form>
      {domain ? (
        <section className="card stack" aria-labelledby="sender-domain-title">
          <h2 id="sender-domain-title">Sending from {domain}</h2>
          {verified ? (
            <p className="notice notice--success">Verified: emails come from {settings?.sender_address}.</p>
          ) : (
            <p>
              Add these records where {domain}’s DNS is managed, then verify. Your email provider (the SMTP service Tend
              sends through) shows its SPF include and DKIM key.
            </p>
          )}
          <div>
            <table className="hd-table hd-dns">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {records.map((r) => (
                  <tr key={r.name}>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.name}</code>
                    </td>
                    <td>
                      <code>{r.value}</code>
                    </td>
                    <td>{r.why}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Form method="post" className="stack">
            <ErrorList errors={answer && 'verifyError' in answer ? [answer.verifyError] : undefined} />
            <div className="hd-actions">
              <SubmitButton name="intent" value="verify" className="button button--secondary">
                {verified ? 'Verify again' : 'Verify'}
              </SubmitButton>
            </div>
          </Form>
        </section>
      ) : null}
    </section>
  );
}
