/** Requests to a test control plane's API server as its administrator (a client certificate in system:masters). */
import { Agent, request } from "undici";
import type { CertificateAndKey } from "../../crypto/certificates.js";

export interface KubeResponse {
  readonly status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  readonly body: unknown;
  readonly text: string;
}

export class AdminClient {
  private readonly agent: Agent;

  constructor(
    private readonly url: string,
    caPem: string,
    admin: CertificateAndKey,
  ) {
    this.agent = new Agent({ connect: { ca: caPem, cert: admin.certPem, key: admin.keyPem } });
  }

  async request(method: string, path: string, body?: unknown): Promise<KubeResponse> {
    const res = await request(`${this.url}${path}`, {
      method: method as "GET",
      dispatcher: this.agent,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, body: parsed, text };
  }

  /** Like request, but any status outside 2xx (other than those in `accept`) is an error naming the call. */
  async must(method: string, path: string, body?: unknown, accept: number[] = []): Promise<KubeResponse> {
    const res = await this.request(method, path, body);
    if ((res.status < 200 || res.status > 299) && !accept.includes(res.status)) {
      throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    }
    return res;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
