alter table "public"."attachments" alter column "created_at" set default clock_timestamp();
