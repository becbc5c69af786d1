import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { onUnauthorized } from "./api/client";
import { currentSession, type SessionInfo } from "./api/session";
import { Layout } from "./components/Layout";
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
  if (session === null) return <p className="loading">Loading…</p>;
  if (!session) return <SignIn onSignedIn={setSession} />;
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
