import { useEffect, useState } from 'preact/hooks';
import { api } from './api/api';
import { TokenPrompt } from './components/token-prompt';
import { useHashRoute } from './hooks/use-hash-route';
import type { Route } from './routes';
import { ClusterPage } from './pages/cluster-page';
import { GroupPage } from './pages/group-page';
import { GroupsPage } from './pages/groups-page';
import { TopicPage } from './pages/topic-page';
import { TopicsPage } from './pages/topics-page';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'cluster':
      return <ClusterPage />;
    case 'topics':
      return <TopicsPage />;
    case 'group':
      return <GroupPage groupId={route.groupId} />;
    case 'topic':
      return <TopicPage name={route.name} />;
    default:
      return <GroupsPage />;
  }
}

/**
 * The frame: navigation, and the token prompt that replaces the page while the node answers 401. A new
 * token remounts the page, so it loads again with it.
 */
export function App() {
  const route = useHashRoute();
  const [needsToken, setNeedsToken] = useState(false);
  const [rejected, setRejected] = useState(false);
  const [session, setSession] = useState(0);
  const [hasToken, setHasToken] = useState(() => api.tokens.get() !== null);
  useEffect(
    () =>
      api.onUnauthorized(() => {
        setRejected(api.tokens.get() !== null);
        setNeedsToken(true);
      }),
    [],
  );
  const nav = (page: Route['page'], label: string, href: string) => (
    <a
      href={href}
      class={
        route.page === page ||
        (page === 'groups' && route.page === 'group') ||
        (page === 'topics' && route.page === 'topic')
          ? 'active'
          : ''
      }
    >
      {label}
    </a>
  );
  return (
    <>
      <header>
        <a class="brand" href="#/groups">
          Cohort
        </a>
        <nav>
          {nav('cluster', 'Cluster', '#/cluster')}
          {nav('groups', 'Groups', '#/groups')}
          {nav('topics', 'Topics', '#/topics')}
        </nav>
        <span class="node mono">{window.location.host}</span>
        {hasToken && (
          <button
            type="button"
            class="link"
            onClick={() => {
              api.tokens.clear();
              setHasToken(false);
              setSession((s) => s + 1);
            }}
          >
            forget token
          </button>
        )}
      </header>
      <main>
        {needsToken ? (
          <TokenPrompt
            rejected={rejected}
            onToken={(token) => {
              api.tokens.set(token);
              setHasToken(true);
              setNeedsToken(false);
              setRejected(false);
              setSession((s) => s + 1);
            }}
          />
        ) : (
          <Page key={`${session}-${route.page}`} route={route} />
        )}
      </main>
    </>
  );
}
