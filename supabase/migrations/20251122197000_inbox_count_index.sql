-- Inbox view counts (all, by status, by assignee, unassigned) read every ticket of a workspace.
-- With requester_id included, the RLS predicate is answerable from the index too, so the counts
-- are index-only scans instead of heap reads of rows that carry the search vector.
create index tickets_counts_idx on public.tickets (workspace_id, status, assignee_id) include (requester_id);
