/**
 * The wire vocabulary of Engram's OAuth 2.1 authorization server (SPEC §3): its metadata (RFC 8414),
 * its errors (RFC 6749 §5.2), lifetimes, PKCE (S256 only) and which redirect URIs it accepts.
 */
import { createHash } from 'node:crypto';

/** The one scope: acting for the member in their workspace, with the member's role. */
export const OAUTH_SCOPE = 'engram';
/** How long an authorization code may wait for its exchange. */
export const CODE_TTL_MS = 5 * 60_000;
/** How long an access token works; the client refreshes it. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
/** How long a refresh token works unused (each refresh issues a new one). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;
/** How long a person has to decide on the consent page. */
export const AUTHORIZATION_REQUEST_TTL_MS = 15 * 60_000;

/** An error in RFC 6749 form: `{ error, error_description }` with its HTTP status. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;

  constructor(error: string, description: string, status = 400) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }

  body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}

/** This server's endpoints, under its issuer (the service's public origin). */
export function oauthEndpoints(issuer: string) {
  return {
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
  };
}

/** Client authentication methods the token, revocation and registration endpoints accept. */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    ...oauthEndpoints(issuer),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    scopes_supported: [OAUTH_SCOPE],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/`,
  };
}

/** The resource (RFC 8707) tokens are issued for: this server's MCP endpoint. */
export const mcpResource = (issuer: string) => `${issuer}/mcp`;

/**
 * The canonical resource a request names, or an `invalid_target` error: tokens are only issued
 * for this server (its MCP endpoint, or its origin). Absent means this server.
 */
export function checkResource(requested: string | undefined, issuer: string): string {
  const canonical = mcpResource(issuer);
  if (requested === undefined || requested === '') return canonical;
  const trimmed = requested.replace(/\/+$/, '');
  if (trimmed === canonical || trimmed === issuer) return canonical;
  throw new OAuthError(
    'invalid_target',
    `Tokens from this server are only for ${canonical}; the request named resource "${requested.slice(0, 200)}".`,
  );
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a PKCE code challenge has the S256 shape (base64url of 32 bytes). */
export const isS256Challenge = (challenge: string) => CHALLENGE.test(challenge);

/** Checks a PKCE verifier against its S256 challenge (RFC 7636 §4.6). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && createHash('sha256').update(verifier, 'ascii').digest('base64url') === challenge;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Whether a URL's host is this machine. */
export const isLoopbackHost = (hostname: string) => LOOPBACK.has(hostname.toLowerCase());

const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

/**
 * Why a redirect URI cannot be registered, or null when it can: https anywhere, http only on
 * loopback (native apps, RFC 8252 §7.3), or an app's own scheme (`cursor://...`, RFC 8252 §7.1);
 * never a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri.slice(0, 200)}" is not an absolute URI`;
  }
  if (url.hash || uri.includes('#')) return `"${uri.slice(0, 200)}" has a fragment; redirect URIs may not`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `"${url.protocol}" redirect URIs are not allowed`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `"${uri.slice(0, 200)}" uses http on a public host; use https (http is only for localhost, 127.0.0.1 or [::1])`;
  }
  if (url.username || url.password) return `"${uri.slice(0, 200)}" carries credentials`;
  return null;
}

/** `redirect_uri` with the authorization response's parameters added (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}
