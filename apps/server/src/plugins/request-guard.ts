import type { Config } from '@engram/config';
import { EngramError, InvalidInputError, unstorableTextProblems } from '@engram/core';
import type { FastifyInstance } from 'fastify';
import { isProbe } from '../routes/health.ts';
import { sendError } from './errors.ts';

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Which Host and Origin headers the service answers (DNS rebinding protection). */
export interface HostPolicy {
  hostnames: Set<string>;
  origins: Set<string>;
  /** Loopback deployments accept any port on localhost names (local proxies, dev tools). */
  loopback: boolean;
}

const isLoopback = (hostname: string) => LOOPBACK_HOSTNAMES.includes(hostname);
const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/**
 * Derives the policy from the configuration: the public URL's host, or — without one — the bound
 * address and the loopback names; plus `ENGRAM_ALLOWED_ORIGINS`.
 */
export function hostPolicy(config: Pick<Config, 'host' | 'publicUrl' | 'allowedOrigins'>): HostPolicy {
  const hostnames = new Set<string>();
  const origins = new Set<string>(config.allowedOrigins);
  let loopback: boolean;
  if (config.publicUrl) {
    const url = new URL(config.publicUrl);
    hostnames.add(url.hostname.toLowerCase());
    origins.add(url.origin);
    loopback = isLoopback(url.hostname);
  } else {
    loopback = true;
    if (!isWildcard(config.host)) {
      const bound = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
      hostnames.add(bound.toLowerCase());
    }
  }
  if (loopback) for (const name of LOOPBACK_HOSTNAMES) hostnames.add(name);
  return { hostnames, origins, loopback };
}

/** The hostname of a Host header value (port and case dropped; IPv6 keeps its brackets). */
export function hostnameOf(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** Null when allowed, else the error to answer with. */
export function checkRequestOrigin(policy: HostPolicy, host: string | undefined, origin: string | undefined): EngramError | null {
  if (!host || !policy.hostnames.has(hostnameOf(host))) {
    return new EngramError(
      'host_not_allowed',
      `Host "${host ?? ''}" is not served here. If this is the address clients should use, set ENGRAM_PUBLIC_URL to it.`,
    );
  }
  if (origin !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    const allowed =
      parsed !== undefined &&
      (policy.origins.has(parsed.origin) || (policy.loopback && isLoopback(parsed.hostname.toLowerCase())));
    if (!allowed) {
      return new EngramError(
        'origin_not_allowed',
        `Origin "${origin}" may not call this service. Add it to ENGRAM_ALLOWED_ORIGINS to allow it.`,
      );
    }
  }
  return null;
}

/** Rejects requests whose Host or Origin this deployment does not serve (403). */
export function registerRequestGuard(app: FastifyInstance, config: Config): void {
  const policy = hostPolicy(config);
  app.addHook('onRequest', async (request, reply) => {
    // Health checks come from load balancers that address the instance by its private IP.
    if (isProbe(request.url)) return;
    const problem = checkRequestOrigin(policy, request.headers.host, request.headers.origin);
    if (problem) return sendError(reply, request, problem);
  });
}

/**
 * Refuses text Postgres cannot store (a NUL, a lone surrogate) anywhere in a REST request's path,
 * query or body, with the field named, before validation or a handler sees it. MCP tool arguments
 * get the same check in the tool layer, so the answer is a tool error the model can read.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    if (request.url === '/mcp' || request.url.startsWith('/mcp?')) return;
    const problems = [
      ...unstorableTextProblems(request.params, 'path'),
      ...unstorableTextProblems(request.query, 'query'),
      ...unstorableTextProblems(request.body),
    ];
    if (problems.length > 0) return sendError(reply, request, new InvalidInputError(problems));
  });
}
