/**
 * The authorization code flow with PKCE (OAuth 2.1), refresh with rotation, and revocation.
 *
 * `GET /oauth/authorize` checks the client and its redirect URI, seals the request (AES-GCM under
 * the server secret, fifteen minutes) and sends the browser to the dashboard's consent page. There
 * a person signs in (dashboard session, member token, or an invite key that makes them a member in
 * the same step) and allows or denies; allowing stores a one-use code for that member. The client
 * exchanges the code with its PKCE verifier for an access token and a refresh token.
 *
 * A grant is a row of `tokens` that names its client: the access token is an ordinary member token
 * that expires, so it acts for its member exactly as an owner-issued token does (role, scope
 * permissions, rate limits, audit) and revoking it from the Members page ends the grant.
 */
import { randomBytes } from 'node:crypto';
import {
  consumeOAuthCode,
  findGrantByRefreshHash,
  forWorkspace,
  grantClientOf,
  insertOAuthCode,
  insertToken,
  linkOAuthCode,
  markTokenRevoked,
  revokeGrantByHash,
  rotateGrant,
  type Database,
  type TenantDb,
} from '@engram/db';
import { z } from 'zod';
import type { MemberPrincipal, TokenCache } from '../auth.ts';
import { generateToken, hashToken, openBytes, sealBytes } from '../credentials.ts';
import { EngramError } from '../errors.ts';
import { admitWithInvite } from '../onboarding.ts';
import type { AuthorizationView } from '../responses.ts';
import { authenticateClient, clientCredentials, type ClientDirectory, type OAuthClient } from './clients.ts';
import {
  ACCESS_TOKEN_TTL_MS,
  AUTHORIZATION_REQUEST_TTL_MS,
  checkResource,
  CODE_TTL_MS,
  isS256Challenge,
  OAUTH_SCOPE,
  OAuthError,
  redirectWith,
  REFRESH_TOKEN_TTL_MS,
  verifierMatches,
} from './protocol.ts';

/** What the authorization server needs. */
export interface OAuthServices {
  db: Database;
  secret: string;
  clients: ClientDirectory;
  /** Cleared when a grant is revoked, so this process stops honouring its token at once. */
  tokens?: TokenCache;
}

/** Where and how a request reached the server. */
export interface OAuthRequestContext {
  /** This server's issuer: its public origin. */
  issuer: string;
  /** Whether the server is reached on loopback (then a client's metadata may live there too). */
  allowLoopback: boolean;
  now?: Date;
}

/** A validated authorization request, sealed between `/oauth/authorize` and the consent page. */
interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state?: string;
  resource: string;
  scope: string;
  /** The issuer the browser started at (RFC 9207 `iss` of the response). */
  iss: string;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
}

const REQUEST_INFO = 'engram oauth authorization request v1';
const REQUEST_AAD = Buffer.from('engram oauth request');

function sealRequest(secret: string, request: AuthorizationRequest): string {
  return sealBytes(secret, REQUEST_INFO, REQUEST_AAD, Buffer.from(JSON.stringify(request))).toString('base64url');
}

function openRequest(secret: string, sealed: string, now: Date): AuthorizationRequest {
  const plain = /^[A-Za-z0-9_-]{1,8000}$/.test(sealed) ? openBytes(secret, REQUEST_INFO, REQUEST_AAD, Buffer.from(sealed, 'base64url')) : null;
  if (!plain) {
    throw new EngramError(
      'oauth_request_invalid',
      'This sign-in link is not valid here (it was altered, cut short, or made by another Engram server). Go back to the app and start connecting again.',
    );
  }
  const request = JSON.parse(plain.toString('utf8')) as AuthorizationRequest;
  if (request.exp <= now.getTime()) {
    throw new EngramError('oauth_request_expired', 'This sign-in link has expired (they last 15 minutes). Go back to the app and start connecting again.');
  }
  return request;
}

/** One query or form parameter: a string, at most once (RFC 6749 §3.1). */
function single(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once.`);
  return value;
}

/** Every parameter of a form, each given at most once. */
function singles(form: Record<string, unknown>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of Object.keys(form)) {
    const value = single(form, name);
    if (value !== undefined) params[name] = value;
  }
  return params;
}

/**
 * `GET /oauth/authorize`: where to send the browser — the consent page, or back to the client with
 * an error. Throws (to be shown as a page, never redirected) when the client or its redirect URI
 * cannot be trusted.
 */
export async function beginAuthorization(services: OAuthServices, query: Record<string, unknown>, context: OAuthRequestContext): Promise<string> {
  const now = context.now ?? new Date();
  const clientId = single(query, 'client_id');
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is missing from the authorization request.');
  const client = await services.clients.resolve(clientId, { allowLoopback: context.allowLoopback });
  const requested = single(query, 'redirect_uri');
  const redirectUri = requested ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required: this client registered more than one.');
  if (!client.redirectUris.includes(redirectUri)) {
    throw new OAuthError(
      'invalid_request',
      `redirect_uri "${redirectUri.slice(0, 200)}" is not one this client registered (they must match exactly): ${client.redirectUris.join(', ').slice(0, 500)}.`,
    );
  }
  const state = single(query, 'state');
  const fail = (error: string, description: string) =>
    redirectWith(redirectUri, { error, error_description: description, state, iss: context.issuer });
  try {
    const responseType = single(query, 'response_type');
    if (responseType !== 'code') {
      return fail('unsupported_response_type', `response_type must be "code"${responseType ? `, not "${responseType.slice(0, 50)}"` : ''}.`);
    }
    const challenge = single(query, 'code_challenge');
    const method = single(query, 'code_challenge_method');
    if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256).');
    if (method !== 'S256') return fail('invalid_request', `code_challenge_method must be S256${method ? `, not "${method.slice(0, 20)}"` : ' (plain is not accepted)'}.`);
    if (!isS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
    if (state !== undefined && state.length > 2000) return fail('invalid_request', 'state is longer than 2000 characters.');
    const resource = checkResource(single(query, 'resource'), context.issuer);
    const sealed = sealRequest(services.secret, {
      client_id: client.clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      ...(state === undefined ? {} : { state }),
      resource,
      scope: OAUTH_SCOPE,
      iss: context.issuer,
      exp: now.getTime() + AUTHORIZATION_REQUEST_TTL_MS,
    });
    return `${context.issuer}/oauth/consent?request=${sealed}`;
  } catch (error) {
    if (error instanceof OAuthError) return fail(error.error, error.message);
    throw error;
  }
}


/** The consent page's decision (`POST /api/v1/oauth/authorization`). */
export const AuthorizationDecision = z
  .object({
    request: z.string().min(1, { error: 'must not be empty' }).max(8000, { error: 'is too long' }),
    decision: z.enum(['allow', 'deny'], { error: 'must be "allow" or "deny"' }),
    token: z.string().trim().min(1, { error: 'must not be empty: paste your member token (egm_...)' }).max(1000).optional(),
    invite_key: z.string().trim().min(1, { error: 'must not be empty: paste the invite key (ek_...)' }).max(1000).optional(),
    display_name: z.string().trim().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
  })
  .strict()
  .refine((d) => !(d.token && d.invite_key), { error: 'give either a member token or an invite key, not both', path: ['token'] });
export type AuthorizationDecision = z.infer<typeof AuthorizationDecision>;

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/** Opens a sealed request for the consent page (the client is looked up again). */
export async function describeAuthorization(
  services: OAuthServices,
  sealed: string,
  context: OAuthRequestContext,
): Promise<Omit<AuthorizationView, 'session'>> {
  const request = openRequest(services.secret, sealed, context.now ?? new Date());
  const client = await services.clients.resolve(request.client_id, { allowLoopback: context.allowLoopback });
  return {
    client: {
      client_id: client.clientId,
      name: client.name,
      uri: client.uri,
      redirect_uri: request.redirect_uri,
      redirect_host: hostOf(request.redirect_uri),
      registration: client.registration,
    },
    resource: request.resource,
    expires_at: new Date(request.exp).toISOString(),
  };
}

/** Who allows: a signed-in member, or an invite key to redeem in the same step. */
export type Consenter = { member: MemberPrincipal } | { invite: { invite_key: string; display_name?: string } };

/**
 * Records the person's decision; the URL to send the browser to (back to the client, with a code or
 * `access_denied`).
 */
export async function decideAuthorization(
  services: OAuthServices,
  decision: { request: string; decision: 'allow' | 'deny' },
  consenter: Consenter | null,
  context: OAuthRequestContext,
): Promise<{ redirectTo: string; memberId?: string; workspaceId?: string }> {
  const now = context.now ?? new Date();
  const request = openRequest(services.secret, decision.request, now);
  const client = await services.clients.resolve(request.client_id, { allowLoopback: context.allowLoopback });
  if (!client.redirectUris.includes(request.redirect_uri)) {
    throw new EngramError('oauth_request_invalid', 'The app no longer lists this redirect address. Go back to the app and start connecting again.');
  }
  const respond = (params: Record<string, string>) => redirectWith(request.redirect_uri, { ...params, state: request.state, iss: request.iss });
  if (decision.decision === 'deny') return { redirectTo: respond({ error: 'access_denied', error_description: 'The person declined to connect this app.' }) };
  if (!consenter) throw new EngramError('unauthorized', 'Sign in to allow: with your dashboard session, a member token, or an invite key.');

  const code = randomBytes(32).toString('base64url');
  const store = (tenant: TenantDb, memberId: string) =>
    insertOAuthCode(
      tenant,
      {
        codeHash: hashToken(code),
        memberId,
        clientId: client.clientId,
        clientName: client.name,
        redirectUri: request.redirect_uri,
        codeChallenge: request.code_challenge,
        resource: request.resource,
        scope: request.scope,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      },
      now,
    );
  let memberId: string;
  let workspaceId: string;
  if ('member' in consenter) {
    ({ memberId, workspaceId } = consenter.member);
    await store(forWorkspace(services.db, workspaceId), memberId);
  } else {
    const admitted = await admitWithInvite(services.db, services.secret, consenter.invite, (tenant, member) => store(tenant, member.memberId), now);
    memberId = admitted.memberId;
    workspaceId = admitted.invite.workspaceId;
  }
  return { redirectTo: respond({ code }), memberId, workspaceId };
}

/** The token endpoint's successful answer (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

function issuePair(now: Date) {
  const accessToken = generateToken();
  const refreshToken = `egr_${randomBytes(32).toString('base64url')}`;
  return {
    accessToken,
    refreshToken,
    stored: {
      tokenHash: hashToken(accessToken),
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
      refreshHash: hashToken(refreshToken),
      refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    },
    response: (): TokenResponse => ({
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
      refresh_token: refreshToken,
      scope: OAUTH_SCOPE,
    }),
  };
}

const grantLabel = (client: OAuthClient) => `${client.name ?? hostOf(client.clientId)} (OAuth)`.slice(0, 200);

/** `POST /oauth/token`: the authorization code and refresh token grants. */
export async function token(
  services: OAuthServices,
  form: Record<string, unknown>,
  authorization: string | undefined,
  context: OAuthRequestContext,
): Promise<TokenResponse> {
  const params = singles(form);
  const credentials = clientCredentials(authorization, params);
  if (!credentials.clientId) throw new OAuthError('invalid_request', 'client_id is required (in the body, or as the Basic authorization user).');
  const client = await services.clients.resolve(credentials.clientId, { allowLoopback: context.allowLoopback });
  authenticateClient(client, credentials);
  const now = context.now ?? new Date();
  switch (params.grant_type) {
    case 'authorization_code':
      return exchangeCode(services, client, params, context.issuer, now);
    case 'refresh_token':
      return refresh(services, client, params, context.issuer, now);
    case undefined:
      throw new OAuthError('invalid_request', 'grant_type is required: authorization_code or refresh_token.');
    default:
      throw new OAuthError('unsupported_grant_type', `grant_type "${params.grant_type.slice(0, 50)}" is not supported here (authorization_code or refresh_token).`);
  }
}

async function exchangeCode(services: OAuthServices, client: OAuthClient, params: Record<string, string>, issuer: string, now: Date): Promise<TokenResponse> {
  if (!params.code) throw new OAuthError('invalid_request', 'code is required.');
  const found = await consumeOAuthCode(services.db, hashToken(params.code), now);
  const invalid = (why: string) => new OAuthError('invalid_grant', why);
  if (!found) throw invalid('This authorization code is not valid.');
  const { code, reused } = found;
  if (reused) {
    // A code presented twice may have been stolen: end whatever it was exchanged for.
    if (code.tokenId) {
      await markTokenRevoked(forWorkspace(services.db, code.workspaceId), code.tokenId, now);
      services.tokens?.clear();
    }
    throw invalid('This authorization code was already used; the tokens issued for it are revoked. Start the sign-in again.');
  }
  if (code.clientId !== client.clientId) throw invalid('This authorization code was issued to another client.');
  if (code.expiresAt.getTime() <= now.getTime()) throw invalid('This authorization code has expired (codes last 5 minutes). Start the sign-in again.');
  if (params.redirect_uri !== code.redirectUri) {
    throw invalid('redirect_uri must be the same one the authorization request used.');
  }
  if (!params.code_verifier) throw invalid('code_verifier is required (PKCE).');
  if (!verifierMatches(params.code_verifier, code.codeChallenge)) throw invalid('code_verifier does not match the code_challenge of the authorization request.');
  if (params.resource !== undefined && checkResource(params.resource, issuer) !== code.resource) {
    throw new OAuthError('invalid_target', `This code was issued for ${code.resource}.`);
  }
  const pair = issuePair(now);
  await forWorkspace(services.db, code.workspaceId).transaction(async (tenant) => {
    const tokenId = await insertToken(tenant, {
      memberId: code.memberId,
      label: grantLabel(client),
      clientId: client.clientId,
      resource: code.resource,
      ...pair.stored,
    });
    await linkOAuthCode(tenant, code.codeHash, tokenId);
  });
  return pair.response();
}

async function refresh(services: OAuthServices, client: OAuthClient, params: Record<string, string>, issuer: string, now: Date): Promise<TokenResponse> {
  const presented = params.refresh_token;
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required.');
  const hash = hashToken(presented);
  const grant = await findGrantByRefreshHash(services.db, hash);
  if (!grant) {
    // A refresh token that was already exchanged: someone else may hold it. End the grant.
    const replayed = await revokeGrantByHash(services.db, hash, { replayed: true, at: now });
    if (replayed) services.tokens?.clear();
    throw new OAuthError(
      'invalid_grant',
      replayed
        ? 'This refresh token was already used; the grant is revoked to be safe. Sign in again.'
        : 'This refresh token is not valid: it expired, was revoked, or its member was removed. Sign in again.',
    );
  }
  if (grant.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'This refresh token was issued to another client.');
  if (!grant.refreshExpiresAt || grant.refreshExpiresAt.getTime() <= now.getTime()) {
    throw new OAuthError('invalid_grant', 'This refresh token has expired. Sign in again.');
  }
  if (params.resource !== undefined && checkResource(params.resource, issuer) !== grant.resource) {
    throw new OAuthError('invalid_target', `This grant is for ${grant.resource ?? 'another resource'}.`);
  }
  const pair = issuePair(now);
  if (!(await rotateGrant(services.db, { tokenId: grant.tokenId, refreshHash: hash }, pair.stored))) {
    throw new OAuthError('invalid_grant', 'This refresh token was just used by another request. Use the tokens that request received.');
  }
  services.tokens?.clear();
  return pair.response();
}

/**
 * `POST /oauth/revoke` (RFC 7009): ends the grant holding this access or refresh token. Unknown
 * tokens are not an error (the answer is the same, so nothing can be probed).
 */
export async function revoke(
  services: OAuthServices,
  form: Record<string, unknown>,
  authorization: string | undefined,
  context: OAuthRequestContext,
): Promise<void> {
  const params = singles(form);
  const presented = params.token;
  if (!presented) throw new OAuthError('invalid_request', 'token is required.');
  const credentials = clientCredentials(authorization, params);
  const hash = hashToken(presented);
  let clientId = credentials.clientId;
  if (clientId) {
    authenticateClient(await services.clients.resolve(clientId, { allowLoopback: context.allowLoopback }), credentials);
  } else {
    // A public client that sent only the token: it proves possession of the token itself.
    clientId = await grantClientOf(services.db, hash);
    if (!clientId) return;
    const client = await services.clients.resolve(clientId, { allowLoopback: context.allowLoopback });
    if (client.authMethod !== 'none') throw new OAuthError('invalid_client', 'This client must authenticate to revoke its tokens.', 401);
  }
  const revoked = await revokeGrantByHash(services.db, hash, { clientId, at: context.now ?? new Date() });
  if (revoked) services.tokens?.clear();
}
