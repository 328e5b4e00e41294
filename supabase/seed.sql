-- Demo data for local development (README lists the accounts). Sign in with any of these emails:
-- the code arrives in the local mail inbox.
--   Acme Support (acme):  admin@acme.test (admin), agent@acme.test, agent2@acme.test (agents)
--   Globex (globex):      admin@globex.test (admin), agent@globex.test (agent)
--   Customers:            customer@example.test, customer2@example.test (Acme), customer3@example.test (Globex)

-- Users as GoTrue stores them ('' in token columns, an email identity), so the real sign-in works.
with people (id, email, display_name) as (values
  ('a0000000-0000-4000-8000-000000000001'::uuid, 'admin@acme.test', 'Ada Admin'),
  ('a0000000-0000-4000-8000-000000000002'::uuid, 'agent@acme.test', 'Alex Agent'),
  ('a0000000-0000-4000-8000-000000000003'::uuid, 'agent2@acme.test', 'Sam Support'),
  ('b0000000-0000-4000-8000-000000000001'::uuid, 'admin@globex.test', 'Grace Globex'),
  ('b0000000-0000-4000-8000-000000000002'::uuid, 'agent@globex.test', 'Gus Agent'),
  ('c0000000-0000-4000-8000-000000000001'::uuid, 'customer@example.test', 'Casey Customer'),
  ('c0000000-0000-4000-8000-000000000002'::uuid, 'customer2@example.test', 'Robin Buyer'),
  ('c0000000-0000-4000-8000-000000000003'::uuid, 'customer3@example.test', 'Jordan Client')
), users as (
  insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, confirmation_token,
    recovery_token, email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_sso_user, is_anonymous)
  select '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', email, '', now() - interval '60 days', '', '', '', '',
    '{"provider": "email", "providers": ["email"]}', jsonb_build_object('display_name', display_name, 'email_verified', true),
    now() - interval '60 days', now() - interval '60 days', false, false
  from people
  returning id, email
)
insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
select id::text, id, jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true), 'email', now() - interval '60 days', now() - interval '60 days', null
from users;

insert into public.workspaces (id, slug, name, created_by) values
  ('d0000000-0000-4000-8000-000000000a01', 'acme', 'Acme Support', 'a0000000-0000-4000-8000-000000000001'),
  ('d0000000-0000-4000-8000-000000000b01', 'globex', 'Globex', 'b0000000-0000-4000-8000-000000000001');

insert into public.memberships (workspace_id, user_id, role) values
  ('d0000000-0000-4000-8000-000000000a01', 'a0000000-0000-4000-8000-000000000001', 'admin'),
  ('d0000000-0000-4000-8000-000000000a01', 'a0000000-0000-4000-8000-000000000002', 'agent'),
  ('d0000000-0000-4000-8000-000000000a01', 'a0000000-0000-4000-8000-000000000003', 'agent'),
  ('d0000000-0000-4000-8000-000000000b01', 'b0000000-0000-4000-8000-000000000001', 'admin'),
  ('d0000000-0000-4000-8000-000000000b01', 'b0000000-0000-4000-8000-000000000002', 'agent');

insert into public.canned_replies (workspace_id, title, body, created_by) values
  ('d0000000-0000-4000-8000-000000000a01', 'Thanks, looking into it', 'Hi {{requester.name}}, thanks for reaching out! I''m looking into #{{ticket.number}} now and will get back to you shortly.

{{agent.name}}, {{workspace.name}}', 'a0000000-0000-4000-8000-000000000001'),
  ('d0000000-0000-4000-8000-000000000a01', 'Need more details', 'Hi {{requester.name}}, could you send us your order number and a screenshot of what you see? That will help us find the problem faster.', 'a0000000-0000-4000-8000-000000000001'),
  ('d0000000-0000-4000-8000-000000000a01', 'Refund issued', 'We''ve issued a full refund. It should appear on your statement within 5–10 business days.', 'a0000000-0000-4000-8000-000000000001');

-- About 40 Acme requests in every status, over the last five weeks, with replies and notes.
with subjects (i, subject, body) as (
  select row_number() over (), s, b from (values
    ('Order #1042 arrived damaged', 'The box was crushed and the mug inside is broken. Can you send a replacement?'),
    ('Can''t log in to my account', 'I keep getting "invalid code" when I try to sign in. I entered the latest one.'),
    ('Refund for duplicate charge', 'I was charged twice for my subscription this month. Please refund one of them.'),
    ('How do I change my shipping address?', 'I moved last week. Where can I update my address for future orders?'),
    ('Invoice needs our VAT number', 'Our accounting team needs the VAT number on last month''s invoice.'),
    ('Tracking link shows no updates', 'The tracking page has said "label created" for six days now.'),
    ('Wrong size delivered', 'I ordered a medium and received a large. How do I exchange it?'),
    ('Discount code not working', 'The code SPRING20 says it is expired but the email says it is valid until Friday.'),
    ('Cancel my subscription', 'Please cancel my subscription at the end of this billing period.'),
    ('Missing item in my order', 'My order had three items but only two were in the package.'),
    ('Export my data', 'Could you send me an export of all my account data?'),
    ('App crashes when uploading photos', 'Every time I attach a photo larger than a few MB the app closes.'),
    ('Question about bulk pricing', 'We would like to order 200 units. Do you offer volume discounts?'),
    ('Password reset email never arrives', 'I requested a reset three times and nothing arrived, not even in spam.'),
    ('Gift wrapping option', 'Can I add gift wrapping to an order that has already been placed?'),
    ('Warranty claim for blender', 'My blender stopped working after four months. Is it under warranty?'),
    ('Change the name on my account', 'I got married and would like to update my last name.'),
    ('Delivery to a PO box', 'Do you ship to PO boxes? Checkout will not accept my address.'),
    ('Charged in the wrong currency', 'I was billed in USD even though my account is set to EUR.'),
    ('Feedback on the new checkout', 'The new checkout is much faster, but the coupon field is hard to find.')
  ) as v(s, b)
), plan as (
  select g as n,
         (array['new','new','open','open','open','pending','pending','solved','solved','closed']::public.ticket_status[])[1 + (g % 10)] as status,
         (array['low','normal','normal','normal','high','urgent']::public.ticket_priority[])[1 + (g % 6)] as priority,
         case when g % 3 = 0 then 'c0000000-0000-4000-8000-000000000002'::uuid else 'c0000000-0000-4000-8000-000000000001'::uuid end as requester,
         -- New requests wait unassigned; two open ones were answered from the queue without taking them.
         case when g % 10 in (0, 1) or g % 20 = 2 then null
              when g % 2 = 0 then 'a0000000-0000-4000-8000-000000000002'::uuid
              else 'a0000000-0000-4000-8000-000000000003'::uuid end as assignee,
         now() - ((41 - g) * interval '20 hours') as opened
  from generate_series(1, 40) g
), inserted as (
  insert into public.tickets (workspace_id, requester_id, subject, status, priority, assignee_id, created_at, last_message_at, solved_at, closed_at)
  select 'd0000000-0000-4000-8000-000000000a01', p.requester, s.subject, p.status, p.priority, p.assignee, p.opened, p.opened,
         -- Solved within the last week (older ones would have been closed by the scheduled job by now);
         -- closed 7 days after solving by the job, or by an admin if that day has not come yet.
         case p.status when 'solved' then least(greatest(p.opened + interval '2 days', now() - interval '6 days'), now() - interval '1 hour')
                       when 'closed' then least(p.opened + interval '2 days', now() - interval '2 hours') end,
         case when p.status = 'closed' then least(p.opened + interval '9 days', now() - interval '1 hour') end
  from plan p join subjects s on s.i = 1 + (p.n - 1) % 20
  order by p.n
  returning id, requester_id, assignee_id, status, created_at, subject
)
insert into public.messages (ticket_id, author_id, kind, body, created_at)
select i.id, i.requester_id, 'reply', s.body, i.created_at from inserted i join subjects s on s.subject = i.subject
union all
select i.id, coalesce(i.assignee_id, 'a0000000-0000-4000-8000-000000000002'), 'note',
       'Checked the order history — looks like a warehouse issue. Escalating if it happens again.', i.created_at + interval '1 hour'
from inserted i where i.status <> 'new'
union all
select i.id, coalesce(i.assignee_id, 'a0000000-0000-4000-8000-000000000002'), 'reply',
       'Thanks for letting us know! I''ve looked into this and here is what we can do: we''ll take care of it today and follow up by email.',
       i.created_at + interval '3 hours'
from inserted i where i.status <> 'new'
union all
select i.id, i.requester_id, 'reply', 'Thank you, that works for me.', i.created_at + interval '1 day'
from inserted i where i.status in ('open', 'solved', 'closed');

-- One request at Globex.
insert into public.tickets (workspace_id, requester_id, subject, created_at, last_message_at)
values ('d0000000-0000-4000-8000-000000000b01', 'c0000000-0000-4000-8000-000000000003', 'Question about my Globex invoice', now() - interval '2 days', now() - interval '2 days');
insert into public.messages (ticket_id, author_id, kind, body, created_at)
select id, requester_id, 'reply', 'The total on invoice INV-2291 looks higher than the quote. Can you check?', created_at
from public.tickets where workspace_id = 'd0000000-0000-4000-8000-000000000b01';

-- History as the app would have written it: created by the requester, then the team's moves.
update public.ticket_events e set actor_id = t.requester_id, "to" = 'new', created_at = t.created_at
  from public.tickets t where e.ticket_id = t.id and e.type = 'created';
insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to", created_at)
select t.id, t.workspace_id, a.actor, s.type, s."from", s."to", s.at
from public.tickets t
cross join lateral (values
  ('assignee', null, t.assignee_id::text, t.created_at + interval '2 hours', t.assignee_id is not null),
  ('status', 'new', 'open', t.created_at + interval '3 hours', t.status <> 'new' and t.status <> 'pending'),
  ('status', 'new', 'pending', t.created_at + interval '3 hours', t.status = 'pending'),
  ('status', 'open', 'solved', t.solved_at, t.status in ('solved', 'closed')),
  ('status', 'solved', 'closed', t.closed_at, t.status = 'closed')
) as s(type, "from", "to", at, applies)
-- The team member on it; an auto-close (7 days after solving) has no actor, an early close is the admin's.
cross join lateral (select case
  when s."to" <> 'closed' then coalesce(t.assignee_id, 'a0000000-0000-4000-8000-000000000002'::uuid)
  when t.closed_at >= t.solved_at + interval '7 days' then null
  else 'a0000000-0000-4000-8000-000000000001'::uuid end) as a(actor)
where s.applies and t.workspace_id = 'd0000000-0000-4000-8000-000000000a01';

-- A pending invitation at Acme for newagent@acme.test. Its token (only ever in the email) is
-- "demo-invitation-token"; the database keeps the sha-256.
insert into public.invitations (workspace_id, email, role, token_hash, invited_by)
values ('d0000000-0000-4000-8000-000000000a01', 'newagent@acme.test', 'agent',
        encode(extensions.digest('demo-invitation-token', 'sha256'), 'hex'), 'a0000000-0000-4000-8000-000000000001');
