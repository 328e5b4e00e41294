// The browser side of <Island> (island.tsx), for app/islands/*.tsx: every marker on the page
// whose name is in `components` becomes a React root, hydrated with the props the server rendered.
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { ISLAND_ATTR, ISLAND_PROPS_ATTR, type IslandComponents } from './island.tsx';

export function hydrateIslands(components: IslandComponents): void {
  for (const marker of document.querySelectorAll<HTMLElement>(`[${ISLAND_ATTR}]`)) {
    const Component = components[marker.getAttribute(ISLAND_ATTR) ?? ''];
    if (!Component) continue;
    const props = JSON.parse(marker.getAttribute(ISLAND_PROPS_ATTR) ?? '{}');
    hydrateRoot(
      marker,
      <StrictMode>
        <Component {...props} />
      </StrictMode>,
    );
  }
}
