-- The queue the ground-truth workers claim from: one table of jobs ordered
-- by (priority, created_at), a row's availability, and the tenants' running
-- counts with their caps (the priority-classes article's conditional
-- update). Times are epoch seconds as the workers' clock reads them.
CREATE TABLE jobs (
  id bigint PRIMARY KEY,
  tenant text NOT NULL,
  queue text NOT NULL,
  priority int NOT NULL,
  service_ms int NOT NULL,
  created_at double precision NOT NULL,
  available_at double precision NOT NULL,
  state text NOT NULL DEFAULT 'queued',
  started_at double precision,
  finished_at double precision,
  worker int
);
CREATE INDEX jobs_claim ON jobs (priority, created_at) WHERE state = 'queued';
CREATE TABLE tenant_runtime (
  tenant text PRIMARY KEY,
  active int NOT NULL DEFAULT 0,
  max_active int NOT NULL
);
