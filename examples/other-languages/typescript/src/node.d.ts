// The few Node built-ins the client uses, declared here so that the only
// dependency is the compiler itself (no @types/node). fetch, Headers and
// TextEncoder come from the standard "DOM" library, which Node 18+ provides.

declare module "node:crypto" {
  interface Hash {
    update(data: string | Uint8Array): Hash;
    digest(encoding: "hex" | "base64"): string;
  }
  export function createHash(algorithm: "sha256"): Hash;
  export function createHmac(algorithm: "sha256", key: string): Hash;
  export function randomUUID(): string;
  export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}

declare module "node:http" {
  interface IncomingMessage extends AsyncIterable<Uint8Array> {
    headers: Record<string, string | string[] | undefined>;
  }
  interface ServerResponse {
    writeHead(status: number): ServerResponse;
    end(): void;
  }
  interface Server {
    listen(port: number, host: string, listening: () => void): Server;
    address(): { port: number } | string | null;
    close(): void;
    closeAllConnections(): void;
  }
  export function createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
}

declare const process: { argv: string[]; exitCode?: number };
