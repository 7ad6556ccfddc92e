/** The URL of database `name` on the server `serverUrl` names (its credentials, host and options kept). */
export function databaseOn(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
