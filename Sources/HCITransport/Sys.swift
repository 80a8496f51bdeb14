#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Free functions under other names: inside types that have `send` and `close` methods the
// C functions of the same names would be shadowed.

func sysSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes, count, 0)
    #endif
}

func sysClose(_ fd: Int32) { _ = close(fd) }

func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }
