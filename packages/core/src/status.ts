import { controlOf, countCurrentFacts, countOpenConflicts, databaseFault, forWorkspace, type Database } from '@engram/db';
import type { MemberPrincipal } from './auth.ts';
import { detectionSummary, withDetection, type StatusDetection } from './detection/backlog.ts';
import { detectiveBudget } from './detection/narrative/pass.ts';

/** What `engram_status` reports to a connected member. */
export interface StatusReport {
  status: 'ready';
  engram_id: string;
  workspace: { id: string; name: string };
  member: { id: string; role: string; display_name: string | null };
  /** Absent when the database cannot count right now (next_prompt says why). */
  memory?: { current_facts: number; open_conflicts: number };
  detective: { narrative: 'on' | 'off' | 'paused'; model: string | null; note: string };
  /** Detection work not done yet, failed or stuck, and what to do (absent when the database cannot say now). */
  detection?: StatusDetection;
  next_prompt: string;
}

export interface StatusOptions {
  llm: { enabled: boolean; model: string };
  /** Tools this caller can use; the next prompt only mentions these. */
  tools: readonly string[];
}

/** Reads the caller's workspace and says where they stand and what to tell the user next. */
export async function getStatus(db: Database, principal: MemberPrincipal, options: StatusOptions): Promise<StatusReport> {
  // The control pool: status answers while request work waits on a lock or a slow statement.
  const control = controlOf(db);
  const tenant = forWorkspace(control, principal.workspaceId);
  const [counted, budget, detection] = await Promise.all([
    Promise.all([countCurrentFacts(tenant), countOpenConflicts(tenant)]).then(
      ([currentFacts, openConflicts]) => ({ current_facts: currentFacts, open_conflicts: openConflicts }),
      (error: unknown) => unavailableCounts(error),
    ),
    options.llm.enabled
      ? detectiveBudget(control, tenant).catch((error: unknown) => {
          if (databaseFault(error)) return null;
          throw error;
        })
      : null,
    detectionSummary(control, principal),
  ]);
  const memory = 'unavailable' in counted ? undefined : counted;
  const detective = !options.llm.enabled
    ? {
        narrative: 'off' as const,
        model: null,
        note: 'The narrative detective is off: this server has no OPENAI_API_KEY. Deterministic conflict checks still run.',
      }
    : budget?.paused
      ? {
          narrative: 'paused' as const,
          model: options.llm.model,
          note: `The narrative detective is ${budget.message}.`,
        }
      : {
          narrative: 'on' as const,
          model: options.llm.model,
          note: `The narrative detective (${options.llm.model}) reads the story around new facts in the background, after commits (coalesced per workspace).`,
        };
  return withDetection<StatusReport>(detection, {
    status: 'ready',
    engram_id: principal.engramId,
    workspace: { id: principal.workspaceId, name: principal.workspaceName },
    member: { id: principal.memberId, role: principal.role, display_name: principal.displayName },
    ...(memory ? { memory } : {}),
    detective,
    next_prompt: 'unavailable' in counted ? `${readyPrompt(principal, undefined, options.tools)} ${counted.unavailable}` : readyPrompt(principal, memory, options.tools),
  });
}

/** Counting needs the facts table; when the database cannot count now, status says so instead of failing. */
function unavailableCounts(error: unknown): { unavailable: string } {
  const fault = databaseFault(error);
  if (!fault) throw error;
  return { unavailable: `Engram cannot count the team memory right now: ${fault.message} Commits and queries may fail until it recovers; try again in ${fault.retryAfterSeconds} s.` };
}

function readyPrompt(principal: MemberPrincipal, memory: StatusReport['memory'], tools: readonly string[]): string {
  const lines = [`Engram is connected: workspace "${principal.workspaceName}" (${principal.engramId}), you are ${article(principal.role)} ${principal.role}.`];
  if (memory) lines.push(`Team memory holds ${plural(memory.current_facts, 'current fact')} and ${plural(memory.open_conflicts, 'open conflict')}.`);
  if (tools.includes('engram_query')) lines.push('Before starting work on an area of the codebase, call engram_query for it.');
  if (tools.includes('engram_commit')) lines.push('After verifying something worth keeping, call engram_commit.');
  if (memory && memory.open_conflicts > 0 && tools.includes('engram_conflicts')) {
    lines.push('Call engram_conflicts to see where the team\'s memory disagrees.');
  }
  return lines.join(' ');
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
