import type { Config } from '@engram/config';
import OpenAI from 'openai';
import type { Embedder } from './embedder.ts';
import { LocalEmbedder } from './local.ts';
import { OpenAIEmbedder } from './openai.ts';

/** The OpenAI client for this deployment (OpenAI, or any compatible server at OPENAI_BASE_URL). */
export function createOpenAIClient(config: { openai: Pick<Config['openai'], 'apiKey' | 'baseUrl'> }): OpenAI | undefined {
  if (!config.openai.apiKey) return undefined;
  return new OpenAI({
    apiKey: config.openai.apiKey,
    ...(config.openai.baseUrl ? { baseURL: config.openai.baseUrl } : {}),
    timeout: 30_000,
    maxRetries: 2,
  });
}

/** The embedder the configuration asks for. */
export function createEmbedder(config: { openai: Pick<Config['openai'], 'apiKey' | 'baseUrl'>; embeddings: Config['embeddings'] }): Embedder {
  if (config.embeddings.provider === 'openai') {
    const client = createOpenAIClient(config);
    if (!client) throw new Error('OpenAI embeddings need OPENAI_API_KEY');
    return new OpenAIEmbedder(client, config.embeddings.model);
  }
  return new LocalEmbedder();
}
