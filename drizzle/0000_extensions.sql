-- pgvector backs facts.embedding and its HNSW index. Managed Postgres (Neon, Supabase, RDS, Fly)
-- allows this statement for the database owner; a self-hosted server needs the extension
-- installed (infra/ensure-pgvector.sh builds it on Debian).
CREATE EXTENSION IF NOT EXISTS vector;
