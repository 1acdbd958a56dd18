import { defineConfig } from 'drizzle-kit';

// drizzle-kit only generates SQL from the schema here; migrations are applied by the service
// (`engram migrate`, or at start), never by drizzle-kit against a live database.
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/schema.ts',
  out: './drizzle',
});
