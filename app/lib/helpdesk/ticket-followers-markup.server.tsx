// The ticket page's followers card as HTML, rendered here so the page's JavaScript carries none of it
// (docs/decisions/006-javascript-budget.md); its forms post to /w/:slug/tickets/:number/followers.
import { renderToStaticMarkup } from 'react-dom/server';
import { type TicketFollower, TicketFollowersForm } from '~/components/ticket-followers-form.tsx';

export const ticketFollowersMarkup = (action: string, followers: TicketFollower[]) =>
  renderToStaticMarkup(<TicketFollowersForm action={action} followers={followers} />);
