// The ticket page's followers card (its title, the list and the form to add one) as HTML, rendered here
// so the page's JavaScript carries none of it (docs/decisions/006-javascript-budget.md); its forms post to
// /w/:slug/tickets/:number/followers. The sidebar puts it in place as it is (sidebar.tsx).
import { renderToStaticMarkup } from 'react-dom/server';
import { type TicketFollower, TicketFollowersForm } from '~/components/ticket-followers-form.tsx';

export const ticketFollowersMarkup = (action: string, followers: TicketFollower[]) =>
  renderToStaticMarkup(
    <div className="card stack" id="followers">
      <h2 className="hd-side-title">Followers</h2>
      <TicketFollowersForm action={action} followers={followers} />
    </div>,
  );
