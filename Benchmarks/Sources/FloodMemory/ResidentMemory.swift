import Foundation

/// The process's resident set size, in bytes: /proc/self/statm on Linux, the peak resident
/// size (getrusage) elsewhere, which only rises, so a leak still shows.
enum ResidentMemory {
    static func bytes() -> Int {
        #if os(Linux)
        if let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = text.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { return pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        #endif
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)   // an enum in Glibc, an Int32 elsewhere
        return usage.ru_maxrss * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return usage.ru_maxrss
        #endif
    }
}
