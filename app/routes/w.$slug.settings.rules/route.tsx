// Rules (admins only, docs/product.md#rules; docs/decisions/061-rules.md): what Tend does by itself when a
// ticket is created, a customer replies, or a ticket has waited in a status, if its conditions hold. The
// rules run in the order listed (move one up or down), each at most once per event; a rule switched off
// stays, doing nothing. Plain forms throughout: the page works the same without JavaScript.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { SubmitButton } from '~/components/forms.tsx';
import { NEW_RULE, RULE_LIMITS } from '~/lib/rules/terms.ts';
import { RuleForm, ValueSuggestions } from './rule-form.tsx';
import type { action, loader } from './rules.server.ts';

export { action, loader } from './rules.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Rules · ${data.workspace.name} · Tend` : 'Rules · Tend' },
  { name: 'description', content: 'What Tend does by itself: when, if, then — the workspace’s rules, in order.' },
];

export default function RulesPage() {
  const { workspace, notice, rules } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { key: arrival } = useLocation();
  const openFor = (id: string) => !!answer && answer.target === id;
  return (
    <section className="stack-lg hd-rules" aria-labelledby="rules-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="rules"
        title="Rules"
        titleId="rules-title"
        notice={notice}
      />
      <ValueSuggestions />
      <section className="card stack" aria-labelledby="saved-rules-title">
        <h2 id="saved-rules-title">
          Rules ({rules.length} of {RULE_LIMITS.rules})
        </h2>
        <p className="muted small">
          They run in this order, each at most once per event; what a rule does never sets off another rule. The history
          of each ticket names the rule that acted.
        </p>
        {rules.length ? (
          <ol className="hd-list" data-testid="rules">
            {rules.map((r, i) => (
              <li key={r.id} className="hd-note hd-rule stack" data-testid="rule">
                <h3 className="hd-canned__title">
                  {i + 1}. <bdi>{r.name}</bdi> {r.enabled ? null : <span className="hd-badge">Off</span>}
                </h3>
                <dl className="hd-rule__summary" data-testid="rule-summary">
                  <div>
                    <dt>When</dt>
                    <dd>{r.when}</dd>
                  </div>
                  <div>
                    <dt>If</dt>
                    <dd>
                      {r.conditions.length
                        ? `${r.match === 'all' ? 'all' : 'any'} of: ${r.conditions.join('; ')}`
                        : 'every ticket'}
                    </dd>
                  </div>
                  <div>
                    <dt>Then</dt>
                    <dd>{r.actions.join('; ')}</dd>
                  </div>
                </dl>
                <div className="hd-actions">
                  <Form method="post">
                    <input type="hidden" name="rule" value={r.id} />
                    <SubmitButton
                      name="intent"
                      value={r.enabled ? 'disable' : 'enable'}
                      className="button button--secondary"
                    >
                      {r.enabled ? 'Switch off' : 'Switch on'}
                      <span className="visually-hidden"> {r.name}</span>
                    </SubmitButton>
                  </Form>
                  {i > 0 ? (
                    <Form method="post">
                      <input type="hidden" name="rule" value={r.id} />
                      <SubmitButton name="intent" value="up" className="button button--ghost">
                        Move up<span className="visually-hidden"> {r.name}</span>
                      </SubmitButton>
                    </Form>
                  ) : null}
                  {i < rules.length - 1 ? (
                    <Form method="post">
                      <input type="hidden" name="rule" value={r.id} />
                      <SubmitButton name="intent" value="down" className="button button--ghost">
                        Move down<span className="visually-hidden"> {r.name}</span>
                      </SubmitButton>
                    </Form>
                  ) : null}
                  <details className="hd-rule__edit" open={openFor(r.id)}>
                    <summary className="button button--secondary">
                      Edit or test<span className="visually-hidden"> {r.name}</span>
                    </summary>
                    <div className="hd-rule__body">
                      <RuleForm stored={r} />
                    </div>
                  </details>
                  <details className="hd-confirm">
                    <summary className="button button--ghost">
                      Delete<span className="visually-hidden"> {r.name}</span>
                    </summary>
                    <Form method="post" className="hd-confirm__body stack">
                      <input type="hidden" name="rule" value={r.id} />
                      <p>
                        Delete “<bdi>{r.name}</bdi>”? The history of tickets it acted on keeps its name.
                      </p>
                      <SubmitButton name="intent" value="delete" className="button button--danger">
                        Delete for good<span className="visually-hidden"> {r.name}</span>
                      </SubmitButton>
                    </Form>
                  </details>
                </div>
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">
            No rules yet. A first one might tag every request that mentions a refund and give it to whoever handles
            refunds.
          </p>
        )}
      </section>
      <section className="card stack" aria-labelledby="new-rule-title">
        <h2 id="new-rule-title">New rule</h2>
        <RuleForm key={openFor(NEW_RULE) ? 'answered' : arrival} />
      </section>
    </section>
  );
}
