drop trigger if exists "tickets_sla" on "public"."tickets";

drop function if exists "private"."sla_ticket_changed"();
