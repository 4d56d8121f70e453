// Preloaded (node --require) into twining-mcp's server by bench/mcp.js: keeps it on this machine.
// Its embedder fetches a model from the network on the first post; here every connection beyond
// the loopback is refused, so it falls back to keyword search as it does offline.
'use strict';
const net = require('net');

const loopback = host => !host || host === 'localhost' || host === '::1' || /^127\./.test(host);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = typeof args[0] === 'object' && args[0] !== null ? args[0] : { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path === undefined && !loopback(options.host)) {
    process.nextTick(() => this.destroy(new Error(`bench: offline, no connection to ${options.host}`)));
    return this;
  }
  return connect.apply(this, args);
};
const realFetch = globalThis.fetch;
if (realFetch)
  globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    return loopback(url.hostname) ? realFetch(input, init) : Promise.reject(new TypeError(`bench: offline, no fetch of ${url.origin}`));
  };
