import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { describeError, onUnauthorized } from "./api/client";
import { currentSession, type SessionInfo } from "./api/session";
import { Layout } from "./components/Layout";
import { loadKinds } from "./kinds";
import { SignIn } from "./pages/SignIn";
import { Routes } from "./Routes";

export function App() {
  const [session, setSession] = useState<SessionInfo | undefined | null>(null);
  const queryClient = useQueryClient();
  useEffect(() => {
    currentSession().then(setSession);
    return onUnauthorized(() => {
      queryClient.clear();
      setSession(undefined);
    });
  }, [queryClient]);
  // The kinds the server declares for the console: menus, lists and forms are made from them.
  const kinds = useQuery({ queryKey: ["console-kinds"], queryFn: loadKinds, enabled: !!session, staleTime: Infinity });
  if (session === null) return <p className="loading">Loading…</p>;
  if (!session) return <SignIn onSignedIn={setSession} />;
  if (kinds.error)
    return (
      <p role="alert" className="error">
        {describeError(kinds.error)}
      </p>
    );
  if (!kinds.data) return <p className="loading">Loading…</p>;
  return (
    <Layout
      session={session}
      onSignedOut={() => {
        queryClient.clear();
        setSession(undefined);
      }}
    >
      <Routes />
    </Layout>
  );
}
