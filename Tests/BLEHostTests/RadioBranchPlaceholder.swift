// issue5-host declares BLEHostTests but has not committed its tests yet; this keeps the
// package building on issue5-radio. Delete once Tests/BLEHostTests has real files.
import Testing
