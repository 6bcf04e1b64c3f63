// The dashboard: one route per page, each a deep link (docs/dashboard.md lists them).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { SessionProvider, useSession } from './session';
import { SignedInLayout } from './components/layout';
import { SignInPage } from './pages/sign-in';
import { QueuesPage } from './pages/queues';
import { QueuePage } from './pages/queue';
import { PullRequestPage } from './pages/pull-request';
import { TestRunPage } from './pages/test-run';
import { HealthPage } from './pages/health';
import { FlakyTestsPage } from './pages/flaky-tests';
import { FlakyTestPage } from './pages/flaky-test';
import { NotFoundPage } from './pages/not-found';
import { TokensPage } from './pages/tokens';
import { ApiKeysPage } from './pages/api-keys';
import { CliLoginPage } from './pages/cli-login';
import { paths } from './links';
import './styles.css';

function Home() {
  const { session, checking } = useSession();
  if (checking) return null;
  return <Navigate to={session ? paths.queues(session.org) : paths.signIn} replace />;
}

const router = createBrowserRouter([
  { path: '/', element: <Home /> },
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/cli-login', element: <CliLoginPage /> },
  {
    path: '/:org',
    element: <SignedInLayout />,
    children: [
      { index: true, element: <Home /> },
      { path: 'merge-queue', element: <QueuesPage /> },
      { path: 'merge-queue/queue', element: <QueuePage /> },
      { path: 'merge-queue/pull-request/:number', element: <PullRequestPage /> },
      { path: 'merge-queue/test-run/:id', element: <TestRunPage /> },
      { path: 'merge-queue/health', element: <HealthPage /> },
      { path: 'flaky-tests', element: <FlakyTestsPage /> },
      { path: 'flaky-tests/test/:id', element: <FlakyTestPage /> },
      { path: 'tokens', element: <TokensPage /> },
      { path: 'api-keys', element: <ApiKeysPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
  {
    path: '*',
    element: (
      <main id="main">
        <NotFoundPage />
      </main>
    ),
  },
]);

// A failed read is shown on the page; retrying a 4xx would only repeat it.
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (count, error) => count < 2 && !('status' in error && Number(error.status) < 500) } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
