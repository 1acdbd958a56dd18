/** Lifts a workspace's rate limits (the benchmark far exceeds the defaults on purpose). */
export async function raiseLimits(baseUrl: string, ownerToken: string): Promise<void> {
  const res = await fetch(new URL('/api/v1/workspace', baseUrl), {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ settings: { commits_per_agent_per_hour: 1_000_000, requests_per_token_per_minute: 1_000_000 } }),
  });
  if (!res.ok) throw new Error(`could not raise the workspace limits: ${res.status} ${await res.text()}`);
}
