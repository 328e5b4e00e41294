create table "public"."user_settings" (
    "user_id" uuid not null default auth.uid(),
    "time_zone" text
      );


alter table "public"."user_settings" enable row level security;

CREATE UNIQUE INDEX user_settings_pkey ON public.user_settings USING btree (user_id);

alter table "public"."user_settings" add constraint "user_settings_pkey" PRIMARY KEY using index "user_settings_pkey";

alter table "public"."user_settings" add constraint "user_settings_time_zone_check" CHECK (((char_length(time_zone) >= 1) AND (char_length(time_zone) <= 64))) not valid;

alter table "public"."user_settings" validate constraint "user_settings_time_zone_check";

alter table "public"."user_settings" add constraint "user_settings_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."user_settings" validate constraint "user_settings_user_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
  ws public.workspaces;
  wanted text collate "C" := private.company_domain('x@' || btrim(p_domain));
  page_size constant integer := 25;
  customers_shown constant integer := 50;
  total integer;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select count(*) into total from public.customers c where c.workspace_id = ws.id and c.company = wanted;
  if wanted is null or total = 0 then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status,
                                               'priority', t.priority, 'last_message_at', t.last_message_at,
                                               'requester_id', t.requester_id, 'requester', t.name)
                            order by t.last_message_at desc, t.id desc), '[]')
    into rows
    from (select t.*, c.name from public.customers c
            cross join lateral (select * from public.tickets t
                                 where t.requester_id = c.user_id and t.workspace_id = ws.id and t.trashed_at is null
                                   and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
                                 order by t.last_message_at desc, t.id desc
                                 limit page_size + 1) t
           where c.workspace_id = ws.id and c.company = wanted
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    -- The time zone: the page's times fall back to it (app/lib/helpdesk/viewer-zone.server.ts).
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'company', jsonb_build_object('domain', wanted, 'customers', total,
                                  'name', (select n.name from public.companies n where n.workspace_id = ws.id and n.domain = wanted)),
    'customers', (select coalesce(jsonb_agg(jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'tickets', c.tickets)
                                            order by c.name_key, c.user_id), '[]')
                    from (select * from public.customers c where c.workspace_id = ws.id and c.company = wanted
                           order by c.name_key, c.user_id limit customers_shown) c),
    'tickets', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= page_size),
    'older', case when jsonb_array_length(rows) > page_size then
               (select jsonb_build_object('at', r ->> 'last_message_at', 'id', r ->> 'id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = page_size) end
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.rate_ticket(p_slug text, p_number integer, p_token text, p_rating csat_rating DEFAULT NULL::csat_rating, p_comment text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  survey uuid := private.survey_of_token(p_token);
  s public.csat_surveys;
  t public.tickets;
  ws public.workspaces;
begin
  select * into s from public.csat_surveys where id = survey for update;
  select * into t from public.tickets where id = s.ticket_id;
  select * into ws from public.workspaces where id = t.workspace_id;
  if s.id is null or ws.slug is distinct from p_slug or t.number is distinct from p_number then
    raise exception using errcode = 'P0001', message = 'survey_invalid';
  end if;
  if s.expires_at <= now() then
    raise exception using errcode = 'P0001', message = 'survey_expired', detail = s.expires_at::text;
  end if;
  if p_comment is not null and coalesce(p_rating, s.rating) is null then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'a comment needs a rating';
  end if;
  if p_rating is not null and p_rating is distinct from s.rating then
    update public.csat_surveys set rating = p_rating, rated_at = now() where id = s.id returning * into s;
  end if;
  if p_comment is not null then
    update public.csat_surveys set comment = nullif(btrim(p_comment), '') where id = s.id returning * into s;
  end if;
  -- time_zone: the page says until when in the reader's zone, else the workspace's (067-viewer-time-zone.md).
  return jsonb_build_object('workspace', ws.name, 'number', t.number, 'subject', t.subject, 'question', s.question,
                            'rating', s.rating, 'comment', s.comment, 'expires_at', s.expires_at,
                            'time_zone', ws.time_zone);
end $function$
;


  create policy "users change their own settings"
  on "public"."user_settings"
  as permissive
  for update
  to authenticated
using ((user_id = ( SELECT auth.uid() AS uid)))
with check ((user_id = ( SELECT auth.uid() AS uid)));



  create policy "users read their own settings"
  on "public"."user_settings"
  as permissive
  for select
  to authenticated
using ((user_id = ( SELECT auth.uid() AS uid)));



  create policy "users set their own settings"
  on "public"."user_settings"
  as permissive
  for insert
  to authenticated
with check ((user_id = ( SELECT auth.uid() AS uid)));


CREATE TRIGGER user_settings_time_zone BEFORE INSERT OR UPDATE OF time_zone ON public.user_settings FOR EACH ROW WHEN ((new.time_zone IS NOT NULL)) EXECUTE FUNCTION private.check_workspace_time_zone();

grant insert (time_zone) on table public.user_settings to authenticated;
grant update (time_zone) on table public.user_settings to authenticated;
revoke delete on table public.user_settings from anon;
revoke delete on table public.user_settings from authenticated;
revoke insert on table public.user_settings from anon;
revoke insert on table public.user_settings from authenticated;
revoke maintain on table public.user_settings from anon;
revoke maintain on table public.user_settings from authenticated;
revoke references on table public.user_settings from anon;
revoke references on table public.user_settings from authenticated;
revoke select on table public.user_settings from anon;
revoke trigger on table public.user_settings from anon;
revoke trigger on table public.user_settings from authenticated;
revoke truncate on table public.user_settings from anon;
revoke truncate on table public.user_settings from authenticated;
revoke update on table public.user_settings from anon;
revoke update on table public.user_settings from authenticated;

grant insert (time_zone) on table public.user_settings to authenticated;
grant update (time_zone) on table public.user_settings to authenticated;
