// node receiver.mjs PORT: answers every POST 204 (a webhook receiver on loopback); keep-alive allowed
/* global process, setInterval */
import http from 'node:http';
let n = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    n++;
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
setInterval(() => process.stdout.write(`received ${n}\n`), 5000).unref();
