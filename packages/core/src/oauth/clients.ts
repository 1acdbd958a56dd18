/**
 * Who may ask for tokens. A client either registered itself (RFC 7591 Dynamic Client Registration,
 * stored) or names itself by the https URL of its Client ID Metadata Document, which is fetched
 * (and cached for a few minutes) whenever the client is met.
 */
import { randomBytes } from 'node:crypto';
import { findOAuthClient, insertOAuthClient, type Database } from '@engram/db';
import { z } from 'zod';
import { hashToken, secretsEqual } from '../credentials.ts';
import { addressProblem, fetchPinned, isLoopbackAddress, systemResolver, type PinnedResponse, type ResolvedAddress, type Resolver } from './addresses.ts';
import { CLIENT_AUTH_METHODS, isLoopbackHost, OAuthError, redirectUriProblem, type ClientAuthMethod } from './protocol.ts';

/** A client as the authorization server deals with it. */
export interface OAuthClient {
  clientId: string;
  /** Its display name (self-asserted for registered clients), or null. */
  name: string | null;
  uri: string | null;
  redirectUris: string[];
  /** `dynamic`: registered itself here; `metadata_document`: its id is the URL of its metadata. */
  registration: 'dynamic' | 'metadata_document';
  authMethod: ClientAuthMethod;
  secretHash: string | null;
}

const text = (max: number) => z.string().trim().min(1).max(max);

/** RFC 7591 client metadata, as far as this server uses it (other members are ignored). */
const ClientMetadata = z.object({
  redirect_uris: z.array(z.string().max(2000), { error: 'redirect_uris must be an array of URIs' }).min(1, { error: 'redirect_uris must list at least one URI' }).max(20, { error: 'redirect_uris may list at most 20 URIs' }),
  client_name: text(200).optional(),
  client_uri: z.url({ protocol: /^https?$/, error: 'client_uri must be an http(s) URL' }).max(2000).optional(),
  token_endpoint_auth_method: z.enum(CLIENT_AUTH_METHODS, { error: `token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}` }).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
});

function checkMetadata(input: unknown, errorCode: string): z.infer<typeof ClientMetadata> {
  const parsed = ClientMetadata.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError(errorCode, issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid client metadata');
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const unsupportedGrant = metadata.grant_types?.find((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupportedGrant) {
    throw new OAuthError('invalid_client_metadata', `grant_types: "${unsupportedGrant}" is not supported here (only authorization_code and refresh_token)`);
  }
  const unsupportedResponse = metadata.response_types?.find((r) => r !== 'code');
  if (unsupportedResponse) throw new OAuthError('invalid_client_metadata', `response_types: "${unsupportedResponse}" is not supported here (only code)`);
  return metadata;
}

/** RFC 7591 registration: stores the client and answers with its id (and secret, if it asked for one). */
export async function registerClient(db: Database, body: unknown, now = new Date()) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_client_metadata', 'The registration body must be a JSON object of client metadata (RFC 7591), with at least redirect_uris.');
  }
  const metadata = checkMetadata(body, 'invalid_client_metadata');
  // RFC 7591 §2: without a method named, the client authenticates with a secret (basic).
  const authMethod = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  const clientId = `egc_${randomBytes(16).toString('base64url')}`;
  const secret = authMethod === 'none' ? undefined : `egcs_${randomBytes(32).toString('base64url')}`;
  await insertOAuthClient(db, {
    clientId,
    secretHash: secret ? hashToken(secret) : null,
    clientName: metadata.client_name ?? null,
    clientUri: metadata.client_uri ?? null,
    redirectUris: metadata.redirect_uris,
    tokenEndpointAuthMethod: authMethod,
    createdAt: now,
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    redirect_uris: metadata.redirect_uris,
    token_endpoint_auth_method: authMethod,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(metadata.client_name ? { client_name: metadata.client_name } : {}),
    ...(metadata.client_uri ? { client_uri: metadata.client_uri } : {}),
  };
}

/** Whether a client id is a Client ID Metadata Document URL (https, with a path). */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Largest metadata document read (the draft suggests documents stay under 5 KB). */
const MAX_DOCUMENT_BYTES = 16 * 1024;
const DOCUMENT_CACHE_MS = 5 * 60_000;
/** How long a metadata fetch may take in all (the authorization page waits on it). */
const FETCH_TIMEOUT_MS = 5_000;

/** How a directory reaches metadata documents: tests give a resolver of their own. */
export interface DocumentFetchOptions {
  resolve?: Resolver;
  timeoutMs?: number;
}

/**
 * Finds clients: registered ones in the database, metadata-document ones by fetching their URL.
 * Fetched documents are cached for five minutes per process.
 */
export class ClientDirectory {
  readonly #db: Database;
  readonly #documents = new Map<string, { client: OAuthClient; expires: number }>();
  readonly #fetch: Required<DocumentFetchOptions>;

  constructor(db: Database, fetchOptions: DocumentFetchOptions = {}) {
    this.#db = db;
    this.#fetch = { resolve: fetchOptions.resolve ?? systemResolver, timeoutMs: fetchOptions.timeoutMs ?? FETCH_TIMEOUT_MS };
  }

  /**
   * The client with this id, or `invalid_client`. `allowLoopback` lets a metadata document live on
   * this machine (local development: the server itself is reached on a loopback address).
   */
  async resolve(clientId: string, options: { allowLoopback: boolean }): Promise<OAuthClient> {
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
    if (isMetadataDocumentId(clientId)) return this.#fromDocument(clientId, options.allowLoopback);
    const row = clientId.length <= 100 ? await findOAuthClient(this.#db, clientId) : undefined;
    if (!row) {
      throw new OAuthError(
        'invalid_client',
        `Unknown client_id "${clientId.slice(0, 100)}": register first (POST /oauth/register), or use the https URL of your client metadata document as client_id.`,
        401,
      );
    }
    return {
      clientId: row.clientId,
      name: row.clientName,
      uri: row.clientUri,
      redirectUris: row.redirectUris,
      registration: 'dynamic',
      authMethod: row.tokenEndpointAuthMethod as ClientAuthMethod,
      secretHash: row.secretHash,
    };
  }

  async #fromDocument(url: string, allowLoopback: boolean): Promise<OAuthClient> {
    const cached = this.#documents.get(url);
    if (cached && cached.expires > Date.now()) return cached.client;
    const client = await fetchClientDocument(url, allowLoopback, this.#fetch);
    if (this.#documents.size >= 1000) this.#documents.delete(this.#documents.keys().next().value as string);
    this.#documents.set(url, { client, expires: Date.now() + DOCUMENT_CACHE_MS });
    return client;
  }
}

const documentError = (url: string, why: string) =>
  new OAuthError('invalid_client', `The client metadata document at ${url.slice(0, 200)} ${why}.`, 400);

/**
 * Resolves a document's host once and checks every address it has: all must be public (or, for a
 * loopback URL while the server itself runs on loopback, all loopback). The fetch then connects to
 * these addresses only.
 */
async function checkedAddresses(url: URL, clientId: string, local: boolean, resolve: Resolver): Promise<ResolvedAddress[]> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await resolve(hostname).catch(() => []);
  if (addresses.length === 0) throw documentError(clientId, 'names a host that does not resolve');
  for (const { address } of addresses) {
    if (local ? isLoopbackAddress(address) : addressProblem(address) === null) continue;
    const why = local ? 'is not a loopback address' : `is ${addressProblem(address)}`;
    throw documentError(clientId, `names a host whose address ${address} ${why}, which this server does not fetch`);
  }
  return addresses;
}

/** Fetches and checks a Client ID Metadata Document. */
async function fetchClientDocument(clientId: string, allowLoopback: boolean, options: Required<DocumentFetchOptions>): Promise<OAuthClient> {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw documentError(clientId, 'is not a valid URL');
  }
  const local = allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) throw documentError(clientId, 'must be an https URL');
  if (url.pathname === '/' || url.hash || url.username || url.password) {
    throw documentError(clientId, 'must be an https URL with a path, without fragment or credentials');
  }
  const addresses = await checkedAddresses(url, clientId, local, options.resolve);
  let response: PinnedResponse;
  try {
    response = await fetchPinned(url, addresses, { timeoutMs: options.timeoutMs, maxBytes: MAX_DOCUMENT_BYTES, accept: 'application/json' });
  } catch (error) {
    throw documentError(clientId, `could not be fetched (${error instanceof Error ? error.message : String(error)})`);
  }
  if (response.status >= 300 && response.status < 400) throw documentError(clientId, `answered with a redirect (HTTP ${response.status}), which this server does not follow: serve the document at its own URL`);
  if (response.status < 200 || response.status >= 300) throw documentError(clientId, `answered HTTP ${response.status}`);
  const body = response.body;
  if (body === null) throw documentError(clientId, `is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw documentError(clientId, 'is not JSON');
  }
  if (typeof document !== 'object' || document === null || (document as { client_id?: unknown }).client_id !== clientId) {
    throw documentError(clientId, 'must name itself: its client_id must equal its URL');
  }
  const method = (document as { token_endpoint_auth_method?: unknown }).token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw documentError(clientId, `asks for token_endpoint_auth_method ${JSON.stringify(method)}; clients identified by a metadata document authenticate with "none" (PKCE) here`);
  }
  const metadata = checkMetadata(document, 'invalid_client');
  return {
    clientId,
    name: metadata.client_name ?? null,
    uri: metadata.client_uri ?? null,
    redirectUris: metadata.redirect_uris,
    registration: 'metadata_document',
    authMethod: 'none',
    secretHash: null,
  };
}

/** A token request's client credentials (RFC 6749 §2.3): from the body or HTTP Basic. */
export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** How they were presented. */
  method: 'none' | 'client_secret_post' | 'client_secret_basic';
}

/** Reads a token or revocation request's client credentials. */
export function clientCredentials(authorization: string | undefined, form: Record<string, string>): ClientCredentials {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const malformed = () => new OAuthError('invalid_client', 'The Basic authorization header must carry client_id:client_secret (each form-urlencoded).', 401);
    if (colon < 0) throw malformed();
    try {
      return {
        clientId: decodeURIComponent(decoded.slice(0, colon)),
        clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
        method: 'client_secret_basic',
      };
    } catch {
      throw malformed();
    }
  }
  if (form.client_secret !== undefined) return { clientId: form.client_id, clientSecret: form.client_secret, method: 'client_secret_post' };
  return { clientId: form.client_id, clientSecret: undefined, method: 'none' };
}

/** Checks the credentials against the client's registered method (401 `invalid_client` otherwise). */
export function authenticateClient(client: OAuthClient, credentials: ClientCredentials): void {
  if (client.authMethod === 'none') return;
  if (!client.secretHash || !credentials.clientSecret || !secretsEqual(hashToken(credentials.clientSecret), client.secretHash)) {
    throw new OAuthError('invalid_client', `This client authenticates with its client_secret (${client.authMethod}); it was missing or wrong.`, 401);
  }
}
