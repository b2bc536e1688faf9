import { useState } from 'preact/hooks';

/** Shown when the node answered 401: the token goes to sessionStorage and every request carries it. */
export function TokenPrompt({ onToken, rejected }: { onToken(token: string): void; rejected: boolean }) {
  const [token, setToken] = useState('');
  return (
    <form
      class="panel token"
      onSubmit={(event) => {
        event.preventDefault();
        if (token.trim()) onToken(token.trim());
      }}
    >
      <h2>This node requires authentication</h2>
      <p>
        Paste a bearer token (a static token or a JWT accepted by the node). It is kept in this tab only and sent as{' '}
        <code>Authorization: Bearer …</code>.
      </p>
      {rejected && <div class="error">SASL_AUTHENTICATION_FAILED: the node did not accept the token</div>}
      <input
        type="password"
        name="token"
        autocomplete="off"
        placeholder="token"
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
      />
      <button type="submit" class="primary">
        Use token
      </button>
    </form>
  );
}
