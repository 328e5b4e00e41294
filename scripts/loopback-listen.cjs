// Preloaded into `remix dev` by scripts/dev.ts (NODE_OPTIONS=--require): a server that listens on
// a port without naming a host listens on 127.0.0.1 instead of every interface. Remix's dev server
// (live reload socket, build pings) has no host option, and a dev machine must not serve others.
const net = require('node:net');

const host = process.env.TEND_DEV_LISTEN_HOST || '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): a host given as a string is kept.
    if (typeof args[1] !== 'string') args.splice(1, 0, host);
  } else if (first && typeof first === 'object' && 'port' in first && !first.host && !first.path) {
    args[0] = { ...first, host };
  } else if (first === undefined || typeof first === 'function') {
    args.unshift(0, host); // listen() or listen(callback): a random port
  }
  return listen.apply(this, args);
};
