// Island pages (docs/decisions/006-javascript-budget.md): a route whose `handle` names an island
// loads no Remix runtime; root.tsx gives it one small module, app/islands/<island>.tsx, which
// hydrates only the parts the route marks with <Island>. Both sides render the same component
// with the same props (serialised into the marker), so hydration matches.
import type { ComponentProps, ComponentType } from 'react';

/** `export const handle: IslandHandle = { island: 'verify' }` — built from app/islands/verify.tsx. */
export interface IslandHandle {
  island: string;
}

export function islandOf(handle: unknown): string | undefined {
  const island = (handle as Partial<IslandHandle> | undefined)?.island;
  return typeof island === 'string' ? island : undefined;
}

/** Island components by name; each takes its own props. */
// biome-ignore lint/suspicious/noExplicitAny: each island declares its own props; the map holds them all
export type IslandComponents = Record<string, ComponentType<any>>;

/** The marker's attributes, read by hydrateIslands (hydrate-islands.tsx). */
export const ISLAND_ATTR = 'data-island';
export const ISLAND_PROPS_ATTR = 'data-island-props';

/**
 * `components[name]` rendered with `props` inside a <div> (with `className`) that the island's
 * script hydrates. Props must survive JSON; without JavaScript this is the page as it stays.
 */
export function Island<C extends IslandComponents, N extends keyof C & string>({
  of,
  name,
  props,
  className,
}: {
  of: C;
  name: N;
  props: ComponentProps<C[N]>;
  className?: string;
}) {
  const Component = of[name];
  const marker = { [ISLAND_ATTR]: name, [ISLAND_PROPS_ATTR]: JSON.stringify(props) };
  return (
    <div className={className} {...marker}>
      <Component {...props} />
    </div>
  );
}
