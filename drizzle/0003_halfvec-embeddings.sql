DROP INDEX "facts_embedding_hnsw_idx";--> statement-breakpoint
ALTER TABLE "facts" ALTER COLUMN "embedding" SET DATA TYPE halfvec(512) USING "embedding"::halfvec(512);--> statement-breakpoint
CREATE INDEX "facts_embedding_hnsw_idx" ON "facts" USING hnsw ("embedding" halfvec_cosine_ops);