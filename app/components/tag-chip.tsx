// A tag as every agent page shows it (docs/product.md §2.4): its name on its colour, a link when it
// leads somewhere (the inbox filtered by it).
import type { ReactNode } from 'react';

export function TagChip({
  name,
  colour,
  href,
  children,
}: {
  name: string;
  colour: string;
  href?: string;
  children?: ReactNode;
}) {
  const className = `hd-tag hd-tag--${colour}`;
  return href ? (
    <a href={href} className={className} data-tag={name}>
      {name}
    </a>
  ) : (
    <span className={className} data-tag={name}>
      {name}
      {children}
    </span>
  );
}
