/// Expected death, verdicts and leak reports. (Being built.)
public enum LeakTracking {}
