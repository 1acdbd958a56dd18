import { checkRequestOrigin, hostnameOf, hostPolicy } from '../../apps/server/src/plugins/request-guard.ts';
import { describe, expect, it } from 'vitest';

describe('hostnameOf', () => {
  it('drops the port and lower-cases, keeping IPv6 brackets', () => {
    expect(hostnameOf('LocalHost:8080')).toBe('localhost');
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
    expect(hostnameOf('engram.example.com')).toBe('engram.example.com');
  });
});

describe('local deployment (no public URL)', () => {
  const policy = hostPolicy({ host: '127.0.0.1', publicUrl: undefined, allowedOrigins: [] });

  it('accepts the loopback names on any port', () => {
    for (const host of ['localhost:8080', '127.0.0.1:9999', '[::1]:8080', 'localhost']) {
      expect(checkRequestOrigin(policy, host, undefined)).toBeNull();
    }
    expect(checkRequestOrigin(policy, 'localhost:8080', 'http://localhost:6274')).toBeNull();
  });

  it('rejects a rebinding host or a foreign origin', () => {
    expect(checkRequestOrigin(policy, 'evil.example.com:8080', undefined)?.code).toBe('host_not_allowed');
    expect(checkRequestOrigin(policy, undefined, undefined)?.code).toBe('host_not_allowed');
    expect(checkRequestOrigin(policy, 'localhost:8080', 'http://evil.example.com')?.code).toBe('origin_not_allowed');
    expect(checkRequestOrigin(policy, 'localhost:8080', 'null')?.code).toBe('origin_not_allowed');
  });

  it('adds a specific bound address', () => {
    const lan = hostPolicy({ host: '192.168.1.20', publicUrl: undefined, allowedOrigins: [] });
    expect(checkRequestOrigin(lan, '192.168.1.20:8080', undefined)).toBeNull();
    expect(checkRequestOrigin(lan, 'localhost:8080', undefined)).toBeNull();
  });
});

describe('hosted deployment (public URL)', () => {
  const policy = hostPolicy({
    host: '0.0.0.0',
    publicUrl: 'https://engram.example.com',
    allowedOrigins: ['https://app.example.com'],
  });

  it('accepts only the public host and the configured origins', () => {
    expect(checkRequestOrigin(policy, 'engram.example.com', undefined)).toBeNull();
    expect(checkRequestOrigin(policy, 'engram.example.com', 'https://engram.example.com')).toBeNull();
    expect(checkRequestOrigin(policy, 'engram.example.com', 'https://app.example.com')).toBeNull();
    expect(checkRequestOrigin(policy, 'localhost:8080', undefined)?.code).toBe('host_not_allowed');
    expect(checkRequestOrigin(policy, 'engram.example.com', 'http://localhost:3000')?.code).toBe('origin_not_allowed');
  });

  it('says what to configure', () => {
    expect(checkRequestOrigin(policy, 'other.example.com', undefined)?.message).toMatch(/ENGRAM_PUBLIC_URL/);
    expect(checkRequestOrigin(policy, 'engram.example.com', 'https://x.example')?.message).toMatch(/ENGRAM_ALLOWED_ORIGINS/);
  });
});
