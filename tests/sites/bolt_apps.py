"""Bolt replies for the tests: small Vite + React + Tailwind apps for two real WebGen-Bench tasks (000001, 000005 of
the benchmark's test.jsonl), a first version with a broken import, and hostile projects.

Every project uses the Bolt template's package.json (``vcoder.sites.npm_cache.BOLT_TEMPLATE``), so one install serves
every test (the sandbox keeps it per dependency set).
"""

from __future__ import annotations

import json

from vcoder.sites.npm_cache import BOLT_TEMPLATE

PACKAGE_JSON = json.dumps(
    {
        "name": "vite-react-typescript-starter",
        "private": True,
        "version": "0.0.0",
        "type": "module",
        "scripts": {"dev": "vite", "build": "vite build", "preview": "vite preview"},
        **BOLT_TEMPLATE,
    },
    indent=2,
)
VITE_CONFIG = """import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  optimizeDeps: { exclude: ['lucide-react'] },
});"""
TAILWIND_CONFIG = """/** @type {import('tailwindcss').Config} */
export default {
  content: ['./index.html', './src/**/*.{js,ts,jsx,tsx}'],
  theme: { extend: {} },
  plugins: [],
};"""
POSTCSS_CONFIG = "export default { plugins: { tailwindcss: {}, autoprefixer: {} } };"
MAIN_TSX = """import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import './index.css';

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);"""
INDEX_CSS = "@tailwind base;\n@tailwind components;\n@tailwind utilities;"


def index_html(title: str) -> str:
    return f"""<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>{title}</title></head>
  <body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body>
</html>"""


STOCK_APP = """import { useState } from 'react';
import { Search } from 'lucide-react';
import { ReportView } from './components/ReportView';

const STOCKS: Record<string, { name: string; price: number; trend: string }> = {
  AAPL: { name: 'Apple', price: 189.5, trend: 'up 3.2% this month' },
  MSFT: { name: 'Microsoft', price: 411.2, trend: 'up 1.1% this month' },
};

export default function App() {
  const [query, setQuery] = useState('');
  const [code, setCode] = useState<string | null>(null);
  const [error, setError] = useState('');
  const search = () => {
    const q = query.trim().toUpperCase();
    const found = Object.keys(STOCKS).find((k) => k === q || STOCKS[k].name.toUpperCase() === q);
    setError(found ? '' : 'Enter a valid stock code or name, e.g. AAPL or Apple');
    setCode(found ?? null);
  };
  return (
    <div className="min-h-screen bg-white p-8">
      <h1 className="text-3xl font-bold text-blue-900">Stock Report Generator</h1>
      <div className="mt-4 flex gap-2">
        <input id="stock" className="border p-2" value={query} onChange={(e) => setQuery(e.target.value)} />
        <button id="search" className="bg-blue-900 text-white px-4 rounded flex items-center gap-1" onClick={search}>
          <Search size={16} /> Search
        </button>
      </div>
      {error && <p className="text-red-700 mt-2">{error}</p>}
      {code && <ReportView code={code} stock={STOCKS[code]} />}
    </div>
  );
}"""
STOCK_REPORT = """export function ReportView({ code, stock }: { code: string; stock: { name: string; price: number; trend: string } }) {
  return (
    <section className="mt-6 border border-blue-900 rounded p-4">
      <h2 className="text-xl text-blue-900">{stock.name} ({code})</h2>
      <p>Price: ${stock.price}</p>
      <p>Market trend: {stock.trend}</p>
    </section>
  );
}"""
POLICY_APP = """import { useMemo, useState } from 'react';
import { PolicyChart } from './components/PolicyChart';

const POLICIES = [
  { name: 'Data Privacy Act', type: 'Privacy', year: 2021, score: 7 },
  { name: 'Clean Air Rule', type: 'Environment', year: 2019, score: 9 },
  { name: 'Open Banking Directive', type: 'Finance', year: 2023, score: 5 },
];

export default function App() {
  const [filter, setFilter] = useState('All');
  const [sortBy, setSortBy] = useState<'name' | 'year'>('name');
  const shown = useMemo(
    () =>
      POLICIES.filter((p) => filter === 'All' || p.type === filter).sort((a, b) =>
        sortBy === 'name' ? a.name.localeCompare(b.name) : a.year - b.year,
      ),
    [filter, sortBy],
  );
  return (
    <div className="min-h-screen p-8" style={{ background: 'lavender' }}>
      <h1 className="text-3xl font-bold text-indigo-800">Regulatory Policy Dashboard</h1>
      <div className="mt-4 flex gap-2">
        {['All', 'Privacy', 'Environment', 'Finance'].map((t) => (
          <button key={t} className="bg-indigo-700 text-white px-3 rounded" onClick={() => setFilter(t)}>{t}</button>
        ))}
        <button className="border border-indigo-700 px-3 rounded" onClick={() => setSortBy(sortBy === 'name' ? 'year' : 'name')}>
          Sort by {sortBy === 'name' ? 'year' : 'name'}
        </button>
      </div>
      <ul className="mt-4">{shown.map((p) => <li key={p.name}>{p.name} ({p.type}, {p.year})</li>)}</ul>
      <PolicyChart policies={shown} />
    </div>
  );
}"""
POLICY_CHART = """export function PolicyChart({ policies }: { policies: { name: string; score: number }[] }) {
  return (
    <svg width="320" height={policies.length * 28} className="mt-4">
      {policies.map((p, i) => (
        <rect key={p.name} x="0" y={i * 28} width={p.score * 30} height="20" fill="indigo" />
      ))}
    </svg>
  );
}"""

#: task id -> (title, App.tsx, the component file's path, its content)
APPS = {
    "000001": ("Stock Report Generator", STOCK_APP, "src/components/ReportView.tsx", STOCK_REPORT),
    "000005": ("Regulatory Policy Dashboard", POLICY_APP, "src/components/PolicyChart.tsx", POLICY_CHART),
}


def action(path: str, content: str) -> str:
    return f'<boltAction type="file" filePath="{path}">\n{content}\n</boltAction>\n'


def artifact(*actions: str, start: bool = True) -> str:
    tail = '<boltAction type="shell">npm install</boltAction>\n' + (
        '<boltAction type="start">npm run dev</boltAction>\n' if start else ""
    )
    return (
        'I will build it with Vite and React.\n<boltArtifact id="app" title="App">\n'
        + "".join(actions)
        + tail
        + "</boltArtifact>"
    )


def project(title: str, app: str, extra: dict[str, str] | None = None, *, config: str = VITE_CONFIG) -> str:
    """A whole project as one Bolt reply."""
    files = {
        "package.json": PACKAGE_JSON,
        "vite.config.ts": config,
        "tailwind.config.js": TAILWIND_CONFIG,
        "postcss.config.js": POSTCSS_CONFIG,
        "index.html": index_html(title),
        "src/main.tsx": MAIN_TSX,
        "src/index.css": INDEX_CSS,
        "src/App.tsx": app,
        **(extra or {}),
    }
    return artifact(*(action(p, c) for p, c in files.items()))


def broken_reply(task_id: str) -> str:
    """The app without its component file: the import of ./components/... cannot be resolved."""
    title, app, _, _ = APPS[task_id]
    return project(title, app)


def fix_reply(task_id: str) -> str:
    """The missing component, added in the next turn."""
    _, _, path, content = APPS[task_id]
    return "The component file was missing; adding it.\n" + artifact(action(path, content))


FINISH = 'The application is complete.\n<boltArtifact id="app" title="App"><boltAction type="finish"/></boltArtifact>'
