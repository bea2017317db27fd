/** Log in with a username and password (a session cookie), or with a pasted API token. */
import { useState } from 'preact/hooks';
import { ApiError, loginWithPassword, loginWithToken } from '../api.js';

function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The server could not be reached.';
  if (error.status === 401) return 'Wrong username, password or token.';
  if (error.status === 429) return 'Too many failed logins: wait a little and try again.';
  return error.message;
}

export function LoginPage() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [failure, setFailure] = useState('');
  const [busy, setBusy] = useState(false);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure('');
    try {
      await work();
    } catch (error) {
      setFailure(explain(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <h1>Vigil console</h1>
      <form onSubmit={(e) => { e.preventDefault(); void attempt(() => loginWithPassword(username, password)); }}>
        <h2>Log in</h2>
        <label>Username <input name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></label>
        <label>Password <input name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <button type="submit" disabled={busy}>Log in</button>
      </form>
      <form onSubmit={(e) => { e.preventDefault(); void attempt(() => loginWithToken(token.trim())); }}>
        <h2>Or use an API token</h2>
        <label>API token <input name="token" type="password" autoComplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} /></label>
        <button type="submit" disabled={busy}>Use token</button>
      </form>
      {failure && <p role="alert" class="error">{failure}</p>}
    </main>
  );
}
