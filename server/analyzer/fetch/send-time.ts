/**
 * When a request went on the wire. undici tells a request's handler the moment it is handed
 * to a connection that is ready — after any DNS lookup, TCP and TLS handshake, and after it
 * waited for a free connection — just before its headers are written. From there to the
 * first byte of the answer is the server's time plus one round trip: the time to first byte
 * without the connection's set-up, which the homepage's TTFB is (docs/report.md,
 * "performance"). A request on a new connection would otherwise count two or three round
 * trips of handshakes that a visitor's browser, on a warm connection, does not pay again.
 */
import type { Dispatcher } from "undici/index.js";

/** The request option (a function) called each time the request is written to a connection. */
const ON_SENT = Symbol("wpreport.onSent");

/** Request options (spread into undici's) that call `onSent` each time the request is written to a connection. */
export function whenSent(onSent: () => void): object {
  return { [ON_SENT]: onSent };
}

type WithOnSent = Dispatcher.DispatchOptions & { [ON_SENT]?: () => void };

/** The handler, told first when the request starts on its connection. */
function toldOnStart(handler: Dispatcher.DispatchHandler, onSent: () => void): Dispatcher.DispatchHandler {
  return {
    onRequestStart: (controller, context) => {
      onSent();
      handler.onRequestStart?.(controller, context);
    },
    onRequestUpgrade: (controller, status, headers, socket) =>
      handler.onRequestUpgrade?.(controller, status, headers, socket),
    onResponseStart: (controller, status, headers, message) =>
      handler.onResponseStart?.(controller, status, headers, message),
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}

/** `dispatcher`, calling a request's `[ON_SENT]` option when the request is written (again, if it is retried). */
export function withSendTime(dispatcher: Dispatcher): Dispatcher {
  return dispatcher.compose((dispatch) => (options, handler) => {
    const onSent = (options as WithOnSent)[ON_SENT];
    return dispatch(options, onSent ? toldOnStart(handler, onSent) : handler);
  });
}
