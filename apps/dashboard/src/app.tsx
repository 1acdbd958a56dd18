/** The dashboard shell: sign-in gate, header, navigation (a menu on phones) and the routed view. */
import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';
import { ApiError } from './api.ts';
import { ErrorNotice, Loading, PageHeader } from './components/ui.tsx';
import { Link, useLocation } from './router.tsx';
import { SessionProvider, useSessionApi } from './session.tsx';
import { ActivityView } from './views/activity.tsx';
import { ConflictsView } from './views/conflicts.tsx';
import { DetectiveView } from './views/detective.tsx';
import { ExpiringView } from './views/expiring.tsx';
import { JoinView } from './views/join.tsx';
import { KnowledgeView } from './views/knowledge.tsx';
import { MembersView } from './views/members.tsx';
import { OAuthConsentView } from './views/oauth-consent.tsx';
import { SignInView } from './views/sign-in.tsx';

// The chart library comes with the timeline view only (a separate chunk, fetched on first visit).
const TimelineView = lazy(() => import('./views/timeline.tsx'));

interface Route {
  path: string;
  label: string;
  view: ComponentType;
}

const ROUTES: Route[] = [
  { path: '/', label: 'Knowledge base', view: () => <KnowledgeView mode="current" /> },
  { path: '/conflicts', label: 'Conflicts', view: ConflictsView },
  { path: '/timeline', label: 'Timeline', view: TimelineView },
  { path: '/as-of', label: 'Point in time', view: () => <KnowledgeView mode="as-of" /> },
  { path: '/expiring', label: 'Expiring', view: ExpiringView },
  { path: '/activity', label: 'Agent activity', view: ActivityView },
  { path: '/members', label: 'Members', view: MembersView },
  { path: '/detective', label: 'Detective', view: DetectiveView },
];

export function App() {
  return (
    <SessionProvider>
      <Gate />
    </SessionProvider>
  );
}

function Gate() {
  const { state, recheck } = useSessionApi();
  const { path } = useLocation();

  if (path === '/join') {
    return (
      <AuthLayout>
        <JoinView />
      </AuthLayout>
    );
  }
  // An MCP client's OAuth consent: with a dashboard session or without (it offers other credentials).
  if (path === '/oauth/consent') {
    return (
      <AuthLayout>
        <OAuthConsentView />
      </AuthLayout>
    );
  }
  switch (state.status) {
    case 'checking':
      return (
        <AuthLayout>
          <Loading label="Checking your session…" />
        </AuthLayout>
      );
    case 'unavailable':
      return (
        <AuthLayout>
          <ErrorNotice error={state.error} title="The dashboard cannot reach the server" onRetry={recheck} />
        </AuthLayout>
      );
    case 'signed-out':
      return (
        <AuthLayout>
          <SignInView notice={state.notice} />
        </AuthLayout>
      );
    case 'signed-in':
      return <Shell />;
  }
}

function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth-layout">
      <header className="auth-brand">
        <Brand />
      </header>
      <main id="main" className="auth-main">
        {children}
      </main>
    </div>
  );
}

function Brand() {
  return (
    <span className="brand">
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" fill="#1d4ed8" />
        <path d="M10 9h12v3H14v3h7v3h-7v3h8v3H10z" fill="#fff" />
      </svg>
      <span className="brand-name">Engram</span>
    </span>
  );
}

function Shell() {
  const { state, signOut } = useSessionApi();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [signOutError, setSignOutError] = useState<ApiError | null>(null);
  if (state.status !== 'signed-in') return null;
  const { member, workspace } = state.session;
  const route = ROUTES.find((r) => r.path === path);
  const View = route?.view ?? NotFound;

  return (
    <div className="layout">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand-link" aria-label="Engram home: knowledge base">
          <Brand />
        </Link>
        <span className="workspace-name" title={workspace.engram_id}>
          {workspace.name}
        </span>
        <div className="topbar-user">
          <span className="member">
            {member.display_name ? (
              <>
                {member.display_name} <span className="role">({member.role})</span>
              </>
            ) : (
              <>
                Signed in as <span className="role">{member.role}</span>
              </>
            )}
          </span>
          <button
            type="button"
            className="button button-ghost"
            onClick={() => {
              setSignOutError(null);
              signOut().catch((error: unknown) => setSignOutError(error instanceof ApiError ? error : new ApiError(0, 'client', String(error))));
            }}
          >
            Sign out
          </button>
        </div>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="primary-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true" className="menu-icon" />
          Menu
        </button>
      </header>
      <nav id="primary-nav" className={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Dashboard">
        <ul>
          {ROUTES.map((r) => (
            <li key={r.path}>
              <Link to={r.path} aria-current={r.path === path ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {r.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {signOutError ? <ErrorNotice error={signOutError} title="You are still signed in" /> : null}
        <Suspense fallback={<Loading label="Loading view…" />}>
          <View key={path} />
        </Suspense>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no dashboard page here. Go to the <Link to="/">knowledge base</Link>.
      </p>
    </>
  );
}
