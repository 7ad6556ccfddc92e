export interface WorkerUrls {
  editor: string;
  json: string;
  graphql: string;
}

/** The editor's web workers, from our own hashed bundles (the page's CSP allows workers of its own origin only). */
export function installEditorWorkers(urls: WorkerUrls): void {
  (globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
    getWorker: (_workerId: string, label: string) =>
      new Worker(label === 'json' ? urls.json : label === 'graphql' ? urls.graphql : urls.editor, { type: 'module' }),
  };
}
