// A path that is no page of the dashboard.
import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <>
      <h1>No such page</h1>
      <p>
        Start from the <Link to="/">queues of your organisation</Link>.
      </p>
    </>
  );
}
