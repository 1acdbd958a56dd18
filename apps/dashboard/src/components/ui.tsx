/** Building blocks shared by the views: headings, loading, errors, empty states, badges, tables, copying. */
import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApiError } from '../api.ts';

/** False until the first view has shown: a fresh page load leaves focus at the top (skip link first). */
let navigated = false;

/** The view's title (focused after in-app navigation so screen readers announce the new page). */
export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Engram`;
    const active = document.activeElement;
    // Move focus to the new page's heading, unless the user is already working somewhere on it.
    if (navigated && (!active || active === document.body || active.closest('nav, form, .auth-card'))) heading.current?.focus({ preventScroll: true });
    navigated = true;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** What went wrong, in the server's words, with a retry when it makes sense. */
export function ErrorNotice({ error, title = 'Something went wrong', onRetry }: { error: ApiError | Error; title?: string; onRetry?: () => void }) {
  const requestId = 'requestId' in error ? error.requestId : undefined;
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      <p>{error.message}</p>
      {requestId ? <p className="muted small">Request id: {requestId}</p> : null}
      {onRetry ? (
        <button type="button" className="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

/** A polite live region for the outcome of an action ("Invite revoked."). */
export function StatusMessage({ message, tone = 'success' }: { message: string | null; tone?: 'success' | 'info' }) {
  return (
    <div role="status" aria-live="polite" className={message ? `notice notice-${tone}` : 'visually-hidden'}>
      {message}
    </div>
  );
}

export type BadgeTone = 'neutral' | 'danger' | 'warning' | 'success' | 'info';

export function Badge({ tone = 'neutral', children, title }: { tone?: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A labelled value in a row of key figures. */
export function Stat({ label, value, hint }: { label: string; value: ReactNode; hint?: ReactNode }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>
        <span className="stat-value">{value}</span>
        {hint ? <span className="stat-hint">{hint}</span> : null}
      </dd>
    </div>
  );
}

/** A horizontal bar for a 0–1 rate; the number is printed beside it, the bar is decoration. */
export function RateBar({ rate, tone = 'info' }: { rate: number; tone?: 'info' | 'danger' | 'success' }) {
  const pct = Math.max(0, Math.min(1, Number.isFinite(rate) ? rate : 0)) * 100;
  return (
    <span className={`rate-bar rate-${tone}`} aria-hidden="true">
      <span style={{ width: `${pct}%` }} />
    </span>
  );
}

/**
 * A data table in a wrapper that scrolls it sideways if it must: a region labelled by the table's
 * caption, which keyboard users can focus and scroll (WCAG 2.1.1; axe `scrollable-region-focusable`).
 * On phones each row becomes a compact card, its cells label/value pairs in `phoneColumns` columns
 * (cells with the class `phone-wide` take a whole line). Children are the table's head and body.
 */
export function DataTable({ caption, children, phoneColumns = 2 }: { caption: string; children: ReactNode; phoneColumns?: 2 | 3 }) {
  const wrap = useRef<HTMLDivElement>(null);
  const overflow = useSideways(wrap);
  return (
    <div className="table-frame" data-overflow={overflow ?? undefined}>
      {overflow ? (
        <p className="table-scroll-hint small muted" aria-hidden="true">
          {overflow === 'right' ? 'More columns to the right: scroll sideways →' : overflow === 'left' ? '← More columns to the left' : '← Scroll sideways for more columns →'}
        </p>
      ) : null}
      <div className="table-edge">
        <div ref={wrap} className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
          <table className={`data-table stack-on-phone phone-cols-${phoneColumns}`}>
            <caption className="visually-hidden">{caption}</caption>
            {children}
          </table>
        </div>
      </div>
    </div>
  );
}

/**
 * Whether a scrolling box hides content sideways, and on which side: a table wider than its space
 * must say so (a clipped last column otherwise looks like the whole table). Watches size changes
 * and scrolling; null when everything is in view.
 */
function useSideways(box: { current: HTMLElement | null }): 'right' | 'left' | 'both' | null {
  const [state, setState] = useState<'right' | 'left' | 'both' | null>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => {
      const hiddenLeft = element.scrollLeft > 1;
      const hiddenRight = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      setState(hiddenLeft && hiddenRight ? 'both' : hiddenRight ? 'right' : hiddenLeft ? 'left' : null);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    const table = element.firstElementChild;
    if (table) observer.observe(table);
    element.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener('scroll', measure);
    };
  }, [box]);
  return state;
}

/**
 * Who committed a fact: the member's name (people know each other by name) above the agent id it
 * came through. Anonymous workspaces, and members without a name, show the agent id alone.
 */
export function Committer({ member, agentId }: { member: string | null; agentId: string }) {
  return (
    <span className="committer" title={member ? `${member}, ${agentId}` : agentId}>
      {member ? <span className="committer-member">{member}</span> : null}
      <span className={member ? 'committer-agent muted small' : 'committer-agent'}>{agentId}</span>
    </span>
  );
}

/**
 * A scope path as a tag. It may wrap after a `/` separator and nowhere else: each segment is kept
 * whole (a long path breaks as "backend/" + "payments", never "infra/ca" + "che").
 */
export function ScopeTag({ scope }: { scope: string }) {
  const segments = scope.split('/');
  return (
    <code className="scope-tag">
      {segments.map((segment, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          <span className="scope-segment">{i < segments.length - 1 ? `${segment}/` : segment}</span>
        </Fragment>
      ))}
    </code>
  );
}

const COPIED = 'Copied to the clipboard.';

/**
 * Copies text to the clipboard and says how it went. Where the Clipboard API is unavailable (plain
 * HTTP, a refused permission) it selects `fallback`'s text instead, for Ctrl+C.
 */
export async function copyText(text: string, fallback?: HTMLElement | null): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return COPIED;
  } catch {
    if (fallback instanceof HTMLInputElement || fallback instanceof HTMLTextAreaElement) {
      fallback.focus();
      fallback.select();
    } else if (fallback) {
      window.getSelection()?.selectAllChildren(fallback);
    }
    return 'Your browser blocked clipboard access: the text is selected, press Ctrl+C (⌘C) to copy it.';
  }
}

/**
 * A "Copy" button for one piece of text (`what`, read by screen readers after "Copy": "Copy token").
 * It reads "Copied" for a few seconds after it worked, and a polite live region says so; when the
 * browser refused, the live region shows how to copy instead.
 */
export function CopyButton({ text, what, fallback }: { text: string; what: string; fallback?: () => HTMLElement | null }) {
  const [status, setStatus] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    const outcome = await copyText(text, fallback?.());
    setStatus(outcome);
    window.clearTimeout(timer.current);
    if (outcome === COPIED) timer.current = window.setTimeout(() => setStatus(null), 4000);
  };
  const copied = status === COPIED;
  return (
    <span className="copy">
      <span role="status" className={status && !copied ? 'copy-status small' : 'visually-hidden'}>
        {copied ? 'Copied' : status}
      </span>
      <button type="button" className="button button-secondary button-small" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
        <span className="visually-hidden"> {what}</span>
      </button>
    </span>
  );
}
