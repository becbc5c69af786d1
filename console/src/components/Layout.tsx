import { type ReactNode, useState } from "react";
import { describeError } from "../api/client";
import { type SessionInfo, signOut } from "../api/session";
import { allKinds } from "../kinds";
import { Link, useLocation } from "../router";
import { ConnectionBanner } from "./ConnectionBanner";
import { useFlash } from "./flash";

export function Layout(props: { session: SessionInfo; onSignedOut: () => void; children: ReactNode }) {
  const { path } = useLocation();
  const [error, setError] = useState("");
  const flash = useFlash(path);
  // At phone width the navigation folds into this menu (styles.css); it closes on every navigation.
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuPath, setMenuPath] = useState(path);
  if (menuPath !== path) {
    setMenuPath(path);
    setMenuOpen(false);
  }
  const out = async () => {
    try {
      await signOut();
      props.onSignedOut();
    } catch (err) {
      setError(describeError(err));
    }
  };
  const current = (to: string) => (path === to || path.startsWith(`${to}/`) ? "page" : undefined);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Platform
        </Link>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <span className="who">
          Signed in as <strong>{props.session.user.name}</strong>
        </span>
        <button type="button" onClick={out}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main" id="main-nav" className={menuOpen ? "sidenav open" : "sidenav"}>
        <ul>
          <li>
            <Link to="/" aria-current={path === "/" ? "page" : undefined}>
              Overview
            </Link>
          </li>
          <li>
            <Link to="/self" aria-current={current("/self")}>
              Who am I
            </Link>
          </li>
          {allKinds().map((k) => (
            <li key={k.plural}>
              <Link to={`/k/${k.plural}`} aria-current={current(`/k/${k.plural}`)}>
                {k.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ConnectionBanner />
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {flash && (
          <p role="status" className="notice flash">
            {flash}
          </p>
        )}
        {props.children}
      </main>
    </div>
  );
}
