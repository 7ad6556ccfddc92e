/**
 * The graph's types whose resolvers get one of this domain's values as their parent, for graphql-codegen (codegen.ts
 * collects every `src/<folder>/<folder>.mappers.ts`): type name -> `file#Type`, the file relative to this folder.
 */
export const graphMappers: Record<string, string> = {
  RedirectQr: './qr.view.js#QrRow',
  CallbackQr: './qr.view.js#QrRow',
  QrCheckIn: './qr-event.types.js#CheckInPayload',
};
