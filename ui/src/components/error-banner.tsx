import { describeError } from '../api/rest-error';

/** A failed request, named by its Kafka error. */
export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      {describeError(error)}
    </div>
  );
}
