import { EMBEDDING_DIMENSIONS } from '@engram/db';
import type OpenAI from 'openai';
import type { Embedder } from './embedder.ts';

/**
 * OpenAI (or any OpenAI-compatible server) embeddings at the stored dimension. The recorded model
 * name includes the dimension, since vectors of one model at two sizes are not comparable.
 */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  private readonly client: OpenAI;
  private readonly apiModel: string;

  constructor(client: OpenAI, apiModel: string) {
    this.client = client;
    this.apiModel = apiModel;
    this.model = `openai/${apiModel}@${EMBEDDING_DIMENSIONS}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const response = await this.client.embeddings.create({
      model: this.apiModel,
      input: texts,
      dimensions: EMBEDDING_DIMENSIONS,
      encoding_format: 'float',
    });
    const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    for (const v of vectors) {
      if (v.length !== EMBEDDING_DIMENSIONS) {
        throw new Error(`embedding model ${this.apiModel} returned ${v.length} dimensions, expected ${EMBEDDING_DIMENSIONS}`);
      }
    }
    return vectors;
  }
}
