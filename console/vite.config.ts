import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The console is served by the platform under /console/ (src/console). vite transforms TSX
// with esbuild itself (automatic JSX runtime): no React plugin is needed for a production build.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: fileURLToPath(new URL("../dist/console-web", import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // One script and one stylesheet: nothing inline, so the strict CSP holds.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: {
      // TanStack Query marks its modules "use client" (for React server components): nothing to do here.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  logLevel: "warn",
});
