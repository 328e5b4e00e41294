// Form pieces that need no Remix runtime, so island pages (docs/decisions/006-javascript-budget.md)
// can hydrate them too: the error list, the submit button that shows progress, and whether React
// runs yet. forms.tsx re-exports the first two. (useHydrated sits here rather than in a file of its
// own: a shared module of its own costs every page that uses it a file.)
import { useSyncExternalStore, type ButtonHTMLAttributes, type ReactNode } from 'react';

const subscribe = () => () => undefined;

/** False during the server render and hydration, true once React runs in the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  const list = errors?.filter(Boolean) ?? [];
  if (!list.length) return null;
  return (
    <div id={id} className="error-list" role="alert">
      {list.map((e) => (
        <p key={e}>{e}</p>
      ))}
    </div>
  );
}

export function SubmitButton({
  pending,
  children,
  className = 'button',
  ...props
}: { pending?: boolean; children: ReactNode; className?: string } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="submit" className={className} aria-disabled={pending || undefined} {...props}>
      {children}
      {pending ? <span className="spinner" aria-hidden="true" /> : null}
    </button>
  );
}
