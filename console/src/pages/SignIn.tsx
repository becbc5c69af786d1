import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { describeError } from "../api/client";
import { consoleConfig, type SessionInfo, signIn } from "../api/session";

export function SignIn(props: { onSignedIn: (s: SessionInfo) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const config = useQuery({ queryKey: ["console-config"], queryFn: consoleConfig });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const s = await signIn(key);
      setKey("");
      props.onSignedIn(s);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin" id="main">
      <h1>Sign in to the platform</h1>
      <form onSubmit={submit}>
        <label htmlFor="access-key">Access key</label>
        <input
          id="access-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
        />
        <p className="hint">The key is exchanged for a session; this page does not keep it.</p>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      {config.data?.sso && (
        <p>
          <a className="button" href="/auth/oidc/login">
            Sign in with SSO
          </a>
        </p>
      )}
    </main>
  );
}
